import { dirname } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { importFiles, type ImportFiles } from '../app/import.ts';
import { sessionsDirArg } from '../store/dirs.ts';
import type { FileReport } from '../store/import-booookscore.ts';
import { output, type Stream } from './output.ts';
import { resolveSessionsDir } from '../store/session.ts';
import { sessionsDirOption, type Exit } from './flags.ts';
import { commandLine } from '../program.ts';

export const spec = (exit: Exit) =>
	new Command('import')
		.description(
			"import the BooookScore authors' released files into one collection session, to score, browse and validate",
		)
		.argument('<format>', "the files' format: booookscore")
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
			exit(
				await importCommand(format, {
					...flags,
					sessionsDir: resolveSessionsDir(flags.sessionsDir),
					json: !!flags.json,
				}),
			);
		});

export interface ImportOptions extends ImportFiles {
	json: boolean;
	stdout?: Stream;
}

/** How many unmatched sentences, orphan books or unlocated spans are shown by name. */
const FIRST = 3;

/** `booook import booookscore ...`: the authors' released files into one collection session, and what each gave. */
export async function importCommand(format: string, opts: ImportOptions): Promise<number> {
	const { session, imported } = await importFiles(format, opts);

	const out = output(opts.stdout ?? process.stdout);
	// report needs no model; `score` would annotate with one every sentence that lacks a model verdict.
	const next = ['report', 'validate', ...(imported.judgments.length > 0 ? ['precision'] : [])].map(
		(command) => commandLine(`${command} ${session.id}${sessionsDirArg(dirname(session.path))}`),
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
		`imported into session ${session.id}; its results (no model call): ${report}; judge its annotations: ${validate}${precision ? `; precision: ${precision}` : ''}`,
	);
	out.line(lines.join('\n'));
	return 0;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const quote = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);

/** One line per file: what it gave, and what could not be placed (counted, and the first few named). */
function describe(r: FileReport): string {
	const parts: string[] = [];
	switch (r.flag) {
		case '--summaries':
			parts.push(plural(r.summaries, 'summary', 'summaries'));
			break;
		case '--annotations':
			parts.push(`${plural(r.annotations, 'sentence')} annotated, ${r.confusing} confusing`);
			break;
		case '--intermediate':
			parts.push(
				`${plural(r.summaries, 'final summary', 'final summaries')} with their ${r.method === 'hier' ? 'hierarchical levels' : 'incremental steps'}`,
			);
			break;
		case '--human':
			parts.push(
				`${plural(r.summaries, 'summary', 'summaries')}, ${plural(r.annotations, 'human annotation')} (singles and relations)`,
			);
			break;
		case '--validation':
			parts.push(
				`${plural(r.summaries, 'summary', 'summaries')}, ${plural(r.annotations, 'annotation')}, ${plural(r.judgments, 'verdict')}`,
			);
			break;
	}
	const named = (items: readonly string[]) =>
		`${items.slice(0, FIRST).join(', ')}${items.length > FIRST ? ', ...' : ''}`;
	if (r.unmatched.length > 0) {
		parts.push(
			`${plural(r.unmatched.length, 'annotated sentence')} not found in ${r.unmatched.length === 1 ? 'its summary' : 'their summaries'}, left out (${named(r.unmatched.map((u) => `${u.book}: ${quote(u.text)}`))})`,
		);
	}
	if (r.orphans.length > 0)
		parts.push(
			`${plural(r.orphans.length, 'annotated book')} with no summary, left out (${named(r.orphans)})`,
		);
	if (r.unlocated.length > 0) {
		parts.push(
			`${plural(r.unlocated.length, 'span')} not found in ${r.unlocated.length === 1 ? 'its summary' : 'their summaries'}, kept without a place (${named(r.unlocated.map((u) => `${u.book}: ${quote(u.text)}`))})`,
		);
	}
	return `${r.flag} ${r.file}: ${parts.join('; ')}`;
}
