import { sessionsDirArg, resolveSessionsDir } from '../config.ts';
import { dirname } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { importFiles, type ImportFiles } from '../app/import.ts';
import {
	foreignLine,
	importedJson,
	importedLines,
	importedNext,
	importedSummaryJson,
	importedSummaryLines,
	summaryNext,
} from '../format/import.ts';
import { output, type Stream } from './output.ts';
import { sessionsDirOption, type Exit } from './flags.ts';
import { commandLine } from '../program.ts';
import { badInput } from '../errors.ts';
import { importSummary } from '../app/import-summary.ts';

export const spec = (exit: Exit, program: string) =>
	new Command('import')
		.description(
			"import booookscore: the BooookScore authors' released files into one collection session, to " +
				'score, browse and validate; import summary: a summary made elsewhere, with its book, into a ' +
				"session that evidence, coverage, faithfulness, score and report read as a run's final summary",
		)
		.argument(
			'<format>',
			"booookscore (the authors' files: --summaries, --annotations, --intermediate, --human, --validation) or summary (--book and --summary)",
		)
		.option('--book <file>', 'import summary: the book the summary summarizes (.txt or .epub)')
		.option('--summary <file>', 'import summary: the summary, as UTF-8 text')
		.option('--summaries <file>', "the authors' summaries JSON ({ book: summary })")
		.option('--annotations <file>', "the authors' model annotations of those summaries (needs --summaries)")
		.option(
			'--intermediate <file>',
			'an intermediate run (hierarchical summaries_dict or incremental list); its final summaries are imported',
		)
		.option('--human <file>', "the authors' human annotations JSON (summary-*.json)")
		.option(
			'--validation <file>',
			"the authors' precision study JSON (annotations-gpt4-4096-inc.json format)",
		)
		.option('--session <id>', 'name the new session (default: title-date-time-random)')
		.addOption(sessionsDirOption())
		.option('--json', 'print what was imported as one JSON object')
		.action(async (format, flags) => {
			const { book, summary, ...files } = flags;
			const common = { sessionsDir: resolveSessionsDir(flags.sessionsDir), json: !!flags.json, program };
			exit(
				format === 'summary'
					? await importSummaryCommand({ ...files, book, summary, ...common })
					: await importCommand(format, { ...files, ...common, book, summary }),
			);
		});

export interface ImportOptions extends ImportFiles {
	json: boolean;
	/** How booook was started, for the command lines printed. */
	program: string;
	stdout?: Stream;
	/** `import summary`'s flags, refused here. */
	book?: string;
	summary?: string;
}

/** `booook import booookscore ...`: the authors' released files into one collection session, and what each gave. */
export async function importCommand(format: string, opts: ImportOptions): Promise<number> {
	if (opts.book !== undefined || opts.summary !== undefined)
		throw badInput(
			`--book and --summary are for ${commandLine(opts.program, 'import summary --book BOOK --summary FILE')}; ` +
				`the authors' files take --summaries, --annotations, --intermediate, --human or --validation`,
		);
	const { session, imported } = await importFiles(format, opts);
	const out = output(opts.stdout ?? process.stdout);
	const where = sessionsDirArg(dirname(session.path));
	const next = importedNext(session.id, where, imported.judgments.length > 0).map((n) =>
		commandLine(opts.program, n),
	);
	if (opts.json) out.json(importedJson(session, imported, next));
	else out.line(importedLines(session.id, imported.reports, next).join('\n'));
	return 0;
}

/** The flags `import summary` takes, and what the authors' files take (refused with it). */
export interface ImportSummaryOptions extends Omit<ImportFiles, 'session' | 'sessionsDir'> {
	book?: string;
	summary?: string;
	session?: string;
	sessionsDir: string;
	json: boolean;
	/** How booook was started, for the command lines printed. */
	program: string;
	stdout?: Stream;
	stderr?: Stream;
}

/** `booook import summary --book BOOK --summary FILE`: a session whose final summary is FILE's text. */
export async function importSummaryCommand(opts: ImportSummaryOptions): Promise<number> {
	const files = (['summaries', 'annotations', 'intermediate', 'human', 'validation'] as const).filter(
		(f) => opts[f] !== undefined,
	);
	if (files.length > 0)
		throw badInput(
			`--${files[0]} is for ${commandLine(opts.program, 'import booookscore')}; import summary takes --book BOOK --summary FILE`,
		);
	if (!opts.book || !opts.summary)
		throw badInput(
			`import summary needs both files: ${commandLine(opts.program, 'import summary --book BOOK --summary FILE')}`,
		);
	const made = await importSummary({ ...opts, book: opts.book, summary: opts.summary });
	const where = sessionsDirArg(dirname(made.session.path));
	const next = summaryNext(made.session.id, where).map((n) => commandLine(opts.program, n));
	const out = output(opts.stdout ?? process.stdout);
	if (made.match.foreign) output(opts.stderr ?? process.stderr).line(foreignLine(made));
	if (opts.json) out.json(importedSummaryJson(made, next));
	else out.line(importedSummaryLines(made, next).join('\n'));
	return 0;
}
