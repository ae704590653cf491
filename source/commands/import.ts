import { sessionsDirArg, resolveSessionsDir } from '../config.ts';
import { counted } from '../format/count.ts';
import { dirname } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { importFiles, type ImportFiles } from '../app/import.ts';
import type { FileReport } from '../score/import-booookscore.ts';
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

/** How many unmatched sentences, orphan books or unlocated spans are shown by name. */
const FIRST = 3;

/** `booook import booookscore ...`: the authors' released files into one collection session, and what each gave. */
export async function importCommand(format: string, opts: ImportOptions): Promise<number> {
	if (opts.book !== undefined || opts.summary !== undefined)
		throw badInput(
			`--book and --summary are for ${commandLine(opts.program, 'import summary --book BOOK --summary FILE')}; ` +
				`the authors' files take --summaries, --annotations, --intermediate, --human or --validation`,
		);
	const { session, imported } = await importFiles(format, opts);

	const out = output(opts.stdout ?? process.stdout);
	// report needs no model; `score` would annotate with one every sentence that lacks a model verdict.
	const next = ['report', 'validate', ...(imported.judgments.length > 0 ? ['precision'] : [])].map(
		(command) =>
			commandLine(opts.program, `${command} ${session.id}${sessionsDirArg(dirname(session.path))}`),
	);
	if (opts.json) {
		const summary = {
			session: session.id,
			dir: session.path,
			title: imported.title,
			sources: imported.sources,
			summaries: imported.summaries.length,
			annotations: {
				model: imported.annotations.filter((a) => a.source === 'model').length,
				human: imported.annotations.filter((a) => a.source === 'human').length,
			},
			judgments: imported.judgments.length,
			files: imported.reports,
			next,
		};
		out.json(summary);
		return 0;
	}
	const lines = imported.reports.map(describe);
	const [report, validate, precision] = next;
	lines.push(
		`imported into session ${session.id}; its results (no model call): ${report}; judge its annotations: ` +
			`${validate}${precision ? `; precision: ${precision}` : ''}`,
	);
	out.line(lines.join('\n'));
	return 0;
}

const quote = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);

/** One line per file: what it gave, and what could not be placed (counted, and the first few named). */
function describe(r: FileReport): string {
	const parts: string[] = [];
	switch (r.flag) {
		case '--summaries':
			parts.push(counted(r.summaries, 'summary', 'summaries'));
			break;
		case '--annotations':
			parts.push(`${counted(r.annotations, 'sentence')} annotated, ${r.confusing} confusing`);
			break;
		case '--intermediate':
			parts.push(
				`${counted(r.summaries, 'final summary', 'final summaries')} with their ${r.method === 'hier' ? 'hierarchical levels' : 'incremental steps'}`,
			);
			break;
		case '--human':
			parts.push(
				`${counted(r.summaries, 'summary', 'summaries')}, ${counted(r.annotations, 'human annotation')} (singles and relations)`,
			);
			break;
		case '--validation':
			parts.push(
				`${counted(r.summaries, 'summary', 'summaries')}, ${counted(r.annotations, 'annotation')}, ${counted(r.judgments, 'verdict')}`,
			);
			break;
	}
	const named = (items: readonly string[]) =>
		`${items.slice(0, FIRST).join(', ')}${items.length > FIRST ? ', ...' : ''}`;
	if (r.unmatched.length > 0) {
		parts.push(
			`${counted(r.unmatched.length, 'annotated sentence')} not found in ${r.unmatched.length === 1 ? 'its summary' : 'their summaries'}, ` +
				`left out (${named(r.unmatched.map((u) => `${u.book}: ${quote(u.text)}`))})`,
		);
	}
	if (r.orphans.length > 0)
		parts.push(
			`${counted(r.orphans.length, 'annotated book')} with no summary, left out (${named(r.orphans)})`,
		);
	if (r.unlocated.length > 0) {
		parts.push(
			`${counted(r.unlocated.length, 'span')} not found in ${r.unlocated.length === 1 ? 'its summary' : 'their summaries'}, ` +
				`kept without a place (${named(r.unlocated.map((u) => `${u.book}: ${quote(u.text)}`))})`,
		);
	}
	return `${r.flag} ${r.file}: ${parts.join('; ')}`;
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
	const { id } = made.session;
	const where = sessionsDirArg(dirname(made.session.path));
	// No model call: evidence, coverage and report; score and faithfulness ask one.
	const next = ['evidence', 'coverage', 'report', 'score', 'faithfulness'].map((command) =>
		commandLine(opts.program, `${command} ${id}${where}`),
	);
	const out = output(opts.stdout ?? process.stdout);
	const { match } = made;
	if (match.foreign)
		output(opts.stderr ?? process.stderr).line(
			`warning: only ${match.supported} of ${counted(match.sentences, 'sentence')} of the summary ` +
				`find support in ${JSON.stringify(made.title)} (a quarter of what each says, in one place of ` +
				`the book): if it summarizes another book, import it again with that --book`,
		);
	if (opts.json) {
		out.json({
			session: id,
			dir: made.session.path,
			title: made.title,
			chunks: made.chunks,
			words: made.words,
			support: { sentences: match.sentences, supported: match.supported, another_book: match.foreign },
			next,
		});
		return 0;
	}
	out.line(
		[
			`imported a summary of ${counted(made.words, 'word')} of ${JSON.stringify(made.title)} (${counted(made.chunks, 'chunk')}) into session ${id}`,
			`its evidence (no model call): ${next[0]}`,
			`coverage: ${next[1]}; report: ${next[2]}`,
			`BooookScore: ${next[3]}; faithfulness: ${next[4]}`,
		].join('\n'),
	);
	return 0;
}
