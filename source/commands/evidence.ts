import { resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { badInput } from '../errors.ts';
import { chunkRanges, chunkRuns, TOP_PASSAGES } from '../evidence/evidence.ts';
import { placeText } from '../evidence/book-place.ts';
import { wrapColumns } from '../text/wrap.ts';
import { chunkPlace } from '../summarize/places.ts';
import { clean, wrap } from '../format/text.ts';
import { integer, sessionsDirOption, type Exit } from './flags.ts';
import { readEvidence, type PlacedSentence } from '../app/evidence.ts';
import {
	embedderOf,
	embeddingsModel,
	withEmbeddingsOption,
	type EmbeddingsFlags,
} from './embeddings-flag.ts';
import { sentenceProgress, writer } from './sentence-progress.ts';
import { jsonText, terminalColumns, type Stream } from './output.ts';
import { commandLine } from '../program.ts';
import { counted } from '../format/count.ts';
import { fixed } from '../format/number.ts';

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
		.option('--top <n>', `passages per sentence (1 to ${MAX_TOP})`, integer('--top'), TOP_PASSAGES)
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
	// What `JSON.stringify(value, null, 2)` of the whole answer gives, made a sentence at a time.
	if (opts.json) {
		const head = jsonText(
			{
				session: id,
				node: r.node,
				final: r.final,
				sentences: count,
				top: opts.top,
				chunks: r.chunks,
				chapters: r.chapters,
				...(dense ? { embeddings: dense.spend() } : {}),
			},
			2,
		);
		await write(`${head.slice(0, -2)},\n  "evidence": [`);
	} else {
		const what = r.final ? `final summary (node ${r.node})` : `node ${r.node}`;
		const over = `${counted(count, 'sentence')} over ${counted(r.chunks, 'chunk')}`;
		await write(`${clean(`${r.title} — session ${id}, ${what}: ${over}`)}\n`);
	}
	let done = 0;
	for (const placed of r.each({ top: opts.top, sentences: wanted, dense })) {
		const e = placed.evidence;
		if (opts.json) {
			// Chunks as runs: a model-written sentence can come from every chunk, and a list of them
			// for each sentence made the answer mostly chunk numbers.
			const item = {
				...e,
				chunks: chunkRuns(e.chunks),
				direct: chunkRuns(e.direct),
				aligned: chunkRuns(e.aligned),
				support: Math.round(e.support * 1000) / 1000,
				...(e.denseSupport === undefined ? {} : { denseSupport: Math.round(e.denseSupport * 1000) / 1000 }),
				passages: e.passages.map((p, k) => {
					const { place, text } = placed.passages[k]!;
					return {
						chunk: p.chunk,
						start: p.start,
						end: p.end,
						chapter: place.chapter,
						position: Math.round(place.position * 10_000) / 10_000,
						score: p.score,
						...('similarity' in p ? { similarity: Math.round(Number(p.similarity) * 10_000) / 10_000 } : {}),
						verbatim: p.verbatim,
						text,
					};
				}),
			};
			await write(`${done === 0 ? '' : ','}\n    ${jsonText(item, 2).replaceAll('\n', '\n    ')}`);
		} else {
			await write(`\n${clean(sentenceLines(placed, columns, r.chunks).join('\n'))}\n`);
		}
		progress.tick(++done);
	}
	progress.end();
	await write(opts.json ? (done === 0 ? ']\n}\n' : '\n  ]\n}\n') : '');
	return 0;
}

/** One sentence, where it can come from, and its passages, each wrapped under a numbered head. */
function sentenceLines(placed: PlacedSentence, columns: number, chunks: number): string[] {
	const e = placed.evidence;
	// Its number (from 1) and its text; its support has a line below.
	const lines = [...wrapped(clean(`${e.index + 1}. ${placed.sentence}`), columns)];
	// A tree narrows only what a model copied: say where a person's or an imported text is the origin.
	const named = placed.origins.map(({ node, madeBy }) => (madeBy ? `${node}, ${madeBy}` : node));
	const from = `written at node${e.origins.length === 1 ? '' : 's'} ${named.join(named.some((n) => n.includes(',')) ? '; ' : ', ')}`;
	lines.push(
		`   can come from chunk${e.chunks.length === 1 ? '' : 's'} ${chunkRanges(e.chunks) || 'none'} (${from})`,
	);
	const aligned =
		e.aligned.length === e.chunks.length
			? ''
			: `; aligned to chunk${e.aligned.length === 1 ? '' : 's'} ${chunkRanges(e.aligned)}`;
	const byEmbeddings = e.denseSupport === undefined ? '' : `; by embeddings ${fixed(e.denseSupport, 2)}`;
	lines.push(
		`   support ${fixed(e.support, 2)}${e.weak ? ', weakly supported' : ''}${byEmbeddings}${aligned}`,
	);
	if (e.passages.length === 0) lines.push('   no passage of those chunks shares a word with it');
	e.passages.forEach((p, k) => {
		const { place, text } = placed.passages[k]!;
		const similarity = 'similarity' in p ? `, similarity ${fixed(Number(p.similarity), 3)}` : '';
		const verbatim = p.verbatim ? ', holds the sentence word for word' : '';
		lines.push(
			`   [${k + 1}] ${placeText(place)} (${chunkPlace(p.chunk, chunks)}, characters ${p.start}-${p.end}), ` +
				`score ${fixed(p.score, 2)}${similarity}${verbatim}`,
		);
		for (const l of wrapped(clean(text), columns - 7)) lines.push(`       ${l}`);
	});
	return lines;
}

/** `wrap`, in one pass for text of one-column characters (most books): wrap-ansi took most of the time of a long node. */
function wrapped(text: string, columns: number): readonly string[] {
	return wrapColumns(text, columns) ?? wrap(text, columns);
}
