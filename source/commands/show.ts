import { resolveSessionsDir, sessionsDirArg } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { costText } from '../format/cost.ts';
import { formatInt, counted } from '../format/count.ts';
import type { CollectionSessionData } from '../store/session.ts';
import { collectionData, showSession } from '../app/show.ts';
import { output, safeLine, type Output, type Stream } from './output.ts';
import { sessionsDirOption, type Exit } from './flags.ts';
import { commandLine, say } from '../program.ts';
import { scoreText } from '../format/number.ts';
import { summaryFigures } from '../format/summary.ts';

export const spec = (exit: Exit, program: string) =>
	new Command('show')
		.description(
			'a session: configuration, levels or steps, usage and cost, final summary and its statistics',
		)
		.argument('<id>', 'session id')
		.addOption(sessionsDirOption())
		.option('--json', 'print as JSON')
		.action(async (id, flags) => {
			exit(await showCommand(resolveSessionsDir(flags.sessionsDir), id, { json: !!flags.json, program }));
		});

export async function showCommand(
	dir: string,
	id: string,
	opts: { json: boolean; program: string; stdout?: Stream; stderr?: Stream },
): Promise<number> {
	const out = output(opts.stdout ?? process.stdout);
	// Lost saves are told on stderr, so --json stays one document.
	const read = await showSession(dir, id, {
		lostWork: (warning) =>
			output(opts.stderr ?? process.stderr).line(`warning: ${say(warning, opts.program)}`),
	});
	if (read.kind === 'collection') return showCollection(read.data, opts.json, out, opts.program);
	const { shown } = read;
	if (opts.json) {
		out.json(shown, 2);
		return 0;
	}
	const c = shown.config;
	const lines: string[] = [];
	lines.push(`${safeLine(shown.book.title)} — session ${shown.id}`);
	lines.push(`status: ${shown.status}${shown.error ? ` (${safeLine(shown.error)})` : ''}`);
	lines.push(
		shown.imported
			? `imported summary: read from ${safeLine(shown.imported.file)} (not made here: no method, model ` +
					`or calls); the book in chunks of ${counted(c.chunkSize, 'token')} for its evidence`
			: `method: ${c.method === 'hier' ? 'hierarchical merging' : 'incremental updating'}; ${shown.provider}; ` +
					`chunk ${c.chunkSize}, window ${c.contextWindow}, max summary ${c.maxSummary}, temperature ${c.temperature}, ` +
					`concurrency ${c.concurrency}, clean ${c.clean ? 'on' : 'off'}`,
	);
	lines.push(`book: ${counted(shown.book.tokens, 'token')} in ${counted(shown.chunks, 'chunk')}`);
	for (const row of shown.structure) {
		lines.push(
			`  ${row.name.padEnd(10)} ${row.done}/${row.nodes} done, mean ${counted(row.meanWords, 'word')}` +
				(row.overBudget ? `, ${row.overBudget} over budget` : ''),
		);
	}
	lines.push(
		`usage: ${counted(shown.usage.calls, 'call')}, ${counted(shown.usage.input, 'token')} in (${formatInt(shown.usage.cached)} ` +
			`cached), ${formatInt(shown.usage.output)} out, ${costText(shown.cost, shown.priced)}`,
	);
	if (shown.stats) {
		const s = shown.stats;
		lines.push(`final summary: ${summaryFigures(s)}`);
		const where = sessionsDirArg(dir);
		lines.push(
			shown.booookscore === null
				? `BooookScore: not scored yet (${commandLine(opts.program, `score ${shown.id}${where}`)})`
				: `BooookScore: ${scoreText(shown.booookscore)} (${commandLine(opts.program, `report ${shown.id}${where}`)} for the details)`,
		);
		lines.push('', shown.summary!);
	}
	out.line(lines.join('\n'));
	return 0;
}

/** An imported collection: where it came from and what it holds, per book. */
function showCollection(data: CollectionSessionData, json: boolean, out: Output, program: string): number {
	const shown = collectionData(data);
	if (json) {
		out.json(shown, 2);
		return 0;
	}
	const lines = [
		`${safeLine(data.title)} — collection session ${data.id}, imported from ${data.sources.map(safeLine).join(', ')}`,
		`${counted(shown.summaries, 'summary', 'summaries')}; annotations: ${shown.annotations.model} ` +
			`model, ${shown.annotations.human} human; ${counted(shown.judgments, 'verdict')}`,
		shown.booookscore === null
			? `BooookScore: not every sentence has a model verdict (${commandLine(program, `report ${shown.id}`)} shows what there is)`
			: `BooookScore: ${scoreText(shown.booookscore)}`,
		...shown.books.map(
			(b) =>
				`  ${b.summary.padEnd(5)} ${safeLine(b.book).slice(0, 50).padEnd(50)} ${counted(b.words, 'word').padStart(11)} ` +
				` annotations: ${b.model} model, ${b.human} human`,
		),
	];
	out.line(lines.join('\n'));
	return 0;
}
