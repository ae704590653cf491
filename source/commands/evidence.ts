import { resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { badInput } from '../errors.ts';
import { evidenceEnd, evidenceOpening, evidencePiece } from '../format/evidence.ts';
import { integer, sessionsDirOption, type Exit } from './flags.ts';
import { EVIDENCE_TOP, readEvidence } from '../app/evidence.ts';
import { embedderOf, withEmbeddingsOption, type EmbeddingsFlags } from './embeddings-flag.ts';
import { embeddingsModel } from '../app/dense-evidence.ts';
import { sentenceProgress, writer } from './sentence-progress.ts';
import { terminalColumns, type Stream } from './output.ts';
import { commandLine } from '../program.ts';
import { counted } from '../format/count.ts';

const MAX_TOP = 50;

/** `--node` as given: `n12` or `12`. */
function nodeArg(value: string): `n${number}` {
	const m = /^n?(\d+)$/u.exec(value.trim());
	if (!m) throw badInput(`--node ${value}: name a node of the run as n<number> (for example n0)`);
	return `n${Number(m[1])}`;
}

export const spec = (exit: Exit, program: string) =>
	withEmbeddingsOption(new Command('evidence'))
		.description(
			"where each sentence of a summary comes from: the chunks it can come from by the run's tree, " +
				"and the book's passages most like it (BM25, offline, no model call; with --embeddings, reranked by a model's embeddings)",
		)
		.argument('<id>', `session id (see: ${commandLine(program, 'sessions')})`)
		.addOption(sessionsDirOption())
		.option('--node <n>', 'a node of the run (n12), instead of the final summary', nodeArg)
		.option('--sentence <k>', 'only sentence K (1 is the first)', integer('--sentence'))
		.option('--top <n>', `passages per sentence (1 to ${MAX_TOP})`, integer('--top'), EVIDENCE_TOP)
		.option(
			'--base-url <url>',
			'the OpenAI-compatible server of --embeddings (default: $OPENAI_BASE_URL, else OpenAI)',
		)
		.option(
			'--json',
			'print { session, node, final, sentences, top, chunks, chapters, evidence: [{ index, text, ' +
				'span, origins, chunks, direct, aligned, edited, passages: [{ chunk, start, end, chapter, position, ' +
				"score, verbatim, text }], support, weak }] }; a sentence's chunks, direct and aligned are runs " +
				"[first, last] of chunk indices (from 0), its support in [0, 1] (weak: below 1/3); a passage's " +
				'chapter is { index, title } (null: the book has no headings) and its position its start over ' +
				"the book's length; with --embeddings also embeddings (model, tokens, requests, cachedPassages, " +
				"discardedCache, cost), each sentence's denseSupport and each passage's similarity",
		)
		.action(async (id, flags) => {
			exit(
				await evidenceCommand(resolveSessionsDir(flags.sessionsDir), id, {
					node: flags.node,
					sentence: flags.sentence,
					top: flags.top,
					json: !!flags.json,
					embeddings: embeddingsModel(flags.embeddings),
					baseUrl: flags.baseUrl,
				}),
			);
		});

export async function evidenceCommand(
	dir: string,
	id: string,
	opts: {
		node?: `n${number}`;
		sentence?: number;
		top: number;
		json: boolean;
		stdout?: Stream;
		stderr?: Stream;
	} & EmbeddingsFlags,
): Promise<number> {
	if (opts.top < 1 || opts.top > MAX_TOP)
		throw badInput(`--top ${opts.top}: use a whole number from 1 to ${MAX_TOP} (passages per sentence)`);
	const embeddings = embedderOf(opts);
	const stdout = opts.stdout ?? process.stdout;
	const r = await readEvidence(dir, id, opts.node);
	const count = r.sentences;
	if (opts.sentence !== undefined && (opts.sentence < 1 || opts.sentence > count)) {
		throw badInput(
			`--sentence ${opts.sentence}: node ${r.node} has ${counted(count, 'sentence')}; use 1 to ${count}`,
		);
	}
	// Each sentence is written as soon as its evidence is found and then let go: a node of megabytes
	// streams out at once, in memory that does not grow with it, with its progress on stderr.
	const write = writer(stdout);
	const wanted = opts.sentence === undefined ? undefined : [opts.sentence - 1];
	const dense = await embeddings?.vectors(dir, id, r.session, opts.stderr ?? process.stderr, wanted);
	const progress = sentenceProgress(
		opts.stderr ?? process.stderr,
		`evidence of node ${r.node}`,
		wanted ? 1 : count,
	);
	const columns = terminalColumns(stdout) ?? 100;
	await write(evidenceOpening(opts.json, r, id, opts.top, dense?.spend()));
	let done = 0;
	for (const placed of r.each({ top: opts.top, sentences: wanted, dense })) {
		await write(evidencePiece(opts.json, placed, done === 0, columns, r.chunks));
		progress.tick(++done);
	}
	progress.end();
	await write(evidenceEnd(opts.json, done));
	return 0;
}
