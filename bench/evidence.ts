/**
 * How well booook finds a summary sentence's evidence in its book, on the labelled set
 * (test/fixtures/evidence-set/: sentences paraphrased by hand from the example books, each labelled
 * with its chapters). Issue 27's measures, per book and over all three:
 *
 * - top-1 / top-3 / top-10: the right chapter holds the first 1 / 3 / 10 passages' any one (for a
 *   two-chapter sentence either chapter counts), for single-event and for all labelled sentences;
 * - both-in-top-3: for two-chapter sentences, both chapters among the first 3 passages; through
 *   claims, both among the first 3 passages of some claim (the issue's goal: 80%);
 * - K for 95%: the fewest passages that hold the right chapter for 95% of the labelled sentences
 *   (the issue asks `faithfulness --top K` to be chosen so), "> 50" when 50 do not;
 * - AUC: how well a score separates invented sentences from true ones (the chance that a true
 *   sentence scores above an invented one, ties counted half), by (a) the top passage's rank score
 *   and (b) the support score (0..1) when this checkout has `source/evidence/support.ts`.
 *
 * A passage's chapter is the chapter (`chaptersOf`, read from the book's headings) holding its start.
 * Prints a table and writes it, dated and with the commit measured, to bench/results/<date>-evidence-<commit>.md.
 * Run: node --import tsx bench/evidence.ts [--no-write] [--sentences] (each sentence's labels and
 * first 3 passages' chapters, on stderr: to see which sentences a change wins or loses) [--dev]
 * (the development set instead, test/fixtures/evidence-dev/: paraphrases of other chapters, to work
 * on retrieval with while the labelled set stays held out; `--sentences` is for this one)
 * [--embeddings [MODEL] [--base-url URL]]: also each book reranked by MODEL's embeddings
 * (evidence/rerank.ts; default text-embedding-3-small, OPENAI_API_KEY), one more row per book, with
 * the AUC of the dense support. It needs a real embedding model: the test suite's fake vectors are
 * a hashed bag of stems and measure nothing. The book's vectors are kept under the system's temp
 * folder (booook-bench-embeddings/), so a second run embeds only the sentences.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readBook } from '../source/book/read.ts';
import { DEFAULTS } from '../source/config.ts';
import { TOP_PASSAGES } from '../source/evidence/evidence.ts';
import type { Passage } from '../source/evidence/passages.ts';
import { CLAIM_RANK, PassageIndex } from '../source/evidence/rank.ts';
import { denseSupport, fusedRank, type DenseVectors } from '../source/evidence/rerank.ts';
import { createEmbedder, DEFAULT_EMBEDDING_MODEL, type Embedder } from '../source/llm/embeddings.ts';
import { passageVectors } from '../source/store/embeddings-cache.ts';
import { DASH } from '../source/format/missing.ts';
import { percent } from '../source/format/percent.ts';
import { chapterAt, chaptersOf } from '../source/text/chapters.ts';
import { chunkText } from '../source/text/chunk.ts';
import { CLAIM_PASSAGES } from '../source/score/claims.ts';
import { fakeClaims } from '../test/support/faithfulness-reply.ts';
import {
	BOOKS_DIR,
	DEV_DIR,
	readEvidenceSet,
	SET_DIR,
	type LabelledSentence,
} from '../test/support/evidence-set.ts';
import { ROOT } from './kit.ts';

/** The deepest rank in the top-k figures. */
const TOP = 10;
/** Passages asked for per sentence: how deep K for 95% is looked for. */
const DEPTH = 50;
/** The share of labelled sentences K passages must serve. */
const COVERED = 0.95;

/** One sentence's ranked passages (best first) and, when the checkout has one, its support score. */
interface Retrieved {
	passages: { start: number; score: number }[];
	support: number | null;
	/** The support by embeddings (rerank.ts), when reranked. */
	dense: number | null;
}

type SupportOf = (sentence: string, passages: readonly Passage[], index: PassageIndex) => { support: number };

/**
 * The evidence retrieval measured, in one place so the route can be switched: today booook's pure
 * evidence API in-process, over the book chunked as `run` chunks it (the paper's defaults). A
 * summary that is an edit or an import traces to every chunk of the book, so this is what
 * `evidence` does for it: rank the whole book's passages for each sentence.
 */
function retrieve(
	index: PassageIndex,
	sentences: readonly string[],
	supportOf: SupportOf | null,
	dense: DenseVectors | null,
): Retrieved[] {
	const rank = dense ? fusedRank(index, dense) : (text: string, top: number) => index.rank(text, top);
	return sentences.map((text) => {
		const hits = rank(text, DEPTH);
		// The support the judge would see: that of the passages shown by default.
		const shown = hits.slice(0, TOP_PASSAGES);
		const support = supportOf ? supportOf(text, shown, index).support : null;
		return {
			passages: hits.map((h) => ({ start: h.start, score: h.score })),
			support,
			dense: dense && denseSupport(dense, text, shown),
		};
	});
}

/** The book's passages (kept in the temp folder) and the sentences embedded by `embedder`. */
async function embedded(
	name: string,
	book: string,
	index: PassageIndex,
	sentences: readonly string[],
	embedder: Embedder,
): Promise<DenseVectors> {
	const kept = join(tmpdir(), 'booook-bench-embeddings', name);
	const { vectors } = await passageVectors(kept, book, index.passages, embedder);
	const queries = await embedder.embed(sentences);
	const byText = new Map(sentences.map((text, k) => [text, queries.vectors[k]!]));
	return { passages: vectors, query: (text) => byText.get(text) };
}

/** RETRIEVE's support score (issue 27) when this checkout has it; n/a in the figures before. */
async function loadSupport(): Promise<SupportOf | null> {
	const module = new URL('../source/evidence/support.ts', import.meta.url);
	if (!existsSync(module)) return null;
	return ((await import(module.href)) as { supportOf: SupportOf }).supportOf;
}

/** One labelled sentence as measured: the chapters of its passages, best first. */
interface Measured {
	sentence: LabelledSentence;
	chapters: string[];
	/**
	 * Through claims: each chapter's best rank among the sentence's claims' passages (a claim's
	 * passages ranked for the claim alone, as `faithfulness` shows them to the judge).
	 */
	claimRanks: Map<string, number>;
	top1Score: number;
	support: number | null;
	dense: number | null;
}

/** The chance that a positive scores above a negative (ties half): the area under the ROC curve. */
function auc(positives: readonly number[], negatives: readonly number[]): number | null {
	if (positives.length === 0 || negatives.length === 0) return null;
	let wins = 0;
	for (const p of positives) for (const n of negatives) wins += p > n ? 1 : p === n ? 0.5 : 0;
	return wins / (positives.length * negatives.length);
}

/** How many of `items` `hit` holds for, of how many. */
function share<T>(items: readonly T[], hit: (item: T) => boolean): { hits: number; n: number } {
	return { hits: items.filter(hit).length, n: items.length };
}

/** Through claims, with `k` passages a claim: a right chapter shown; both chapters of a two-chapter sentence shown. */
const claimWithin = (m: Measured, k: number) =>
	m.sentence.chapters.some((c) => (m.claimRanks.get(c) ?? Infinity) <= k);
const claimBothWithin = (m: Measured, k: number) =>
	m.sentence.chapters.every((c) => (m.claimRanks.get(c) ?? Infinity) <= k);

const within = (m: Measured, k: number) =>
	m.chapters.slice(0, k).some((c) => m.sentence.chapters.includes(c));
const bothWithin = (m: Measured, k: number) =>
	m.sentence.chapters.every((c) => m.chapters.slice(0, k).includes(c));

/** The fewest passages whose chapters hold a right one for `covered` of `measured`, as shown. */
function kFor(measured: readonly Measured[], covered: number, rankOf = firstRight): string {
	if (measured.length === 0) return DASH;
	const ranks = measured.map(rankOf).sort((a, b) => a - b);
	const k = ranks[Math.ceil(covered * measured.length) - 1]!;
	return Number.isFinite(k) ? `${k}` : `> ${DEPTH}`;
}

/** The rank of the first passage in a right chapter (Infinity: none among the DEPTH asked for). */
function firstRight(m: Measured): number {
	const rank = m.chapters.findIndex((c) => m.sentence.chapters.includes(c)) + 1;
	return rank === 0 ? Infinity : rank;
}

/** Through claims: the fewest passages a claim that show a right chapter. */
function claimRight(m: Measured): number {
	return Math.min(...m.sentence.chapters.map((c) => m.claimRanks.get(c) ?? Infinity));
}

/** One row of figures for a group of measured sentences. */
function row(name: string, measured: readonly Measured[]): string[] {
	const single = measured.filter((m) => m.sentence.kind === 'single');
	const two = measured.filter((m) => m.sentence.kind === 'two');
	const labelled = [...single, ...two];
	const invented = measured.filter((m) => m.sentence.kind === 'invented');
	const fraction = ({ hits, n }: { hits: number; n: number }) =>
		n === 0 ? DASH : `${percent(hits / n, DASH, 0)} (${hits}/${n})`;
	const area = (value: (m: Measured) => number | null) => {
		const scores = (group: readonly Measured[]) => group.map(value).filter((v) => v !== null);
		const a = scores(labelled).length === labelled.length ? auc(scores(labelled), scores(invented)) : null;
		return a === null ? 'n/a' : a.toFixed(2);
	};
	return [
		name,
		fraction(share(single, (m) => within(m, 1))),
		fraction(share(single, (m) => within(m, 3))),
		fraction(share(single, (m) => within(m, TOP))),
		fraction(share(labelled, (m) => within(m, 1))),
		fraction(share(labelled, (m) => within(m, 3))),
		fraction(share(labelled, (m) => within(m, TOP))),
		kFor(labelled, COVERED),
		fraction(share(two, (m) => bothWithin(m, 3))),
		fraction(share(labelled, (m) => claimWithin(m, CLAIM_PASSAGES))),
		kFor(labelled, COVERED, claimRight),
		fraction(share(two, (m) => claimBothWithin(m, CLAIM_PASSAGES))),
		fraction(share(two, (m) => claimBothWithin(m, 3))),
		area((m) => m.top1Score),
		area((m) => m.support),
		area((m) => m.dense),
	];
}

const HEADER = [
	'book',
	'single top-1',
	'single top-3',
	'single top-10',
	'labelled top-1',
	'labelled top-3',
	'labelled top-10',
	`K for ${COVERED * 100}%`,
	'two: both in top-3',
	`claims: right chapter shown (${CLAIM_PASSAGES} a claim)`,
	`claims: K for ${COVERED * 100}%`,
	`claims, two: both shown (${CLAIM_PASSAGES} a claim)`,
	'claims, two: both in top-3 (3 a claim)',
	'AUC top-1 score',
	'AUC support',
	'AUC dense support',
];

function table(rows: readonly string[][]): string {
	const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
	return [line(HEADER), line(HEADER.map(() => '---')), ...rows.map(line)].join('\n');
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const commit = git('rev-parse', '--short', 'HEAD');
// Retrieval lives in source/: a change there not yet committed is not what the commit measured.
const dirty = git('status', '--porcelain', '--', 'source').length > 0;

const { values: flags, tokens } = parseArgs({
	options: {
		'no-write': { type: 'boolean' },
		sentences: { type: 'boolean' },
		embeddings: { type: 'boolean' },
		'base-url': { type: 'string' },
		dev: { type: 'boolean' },
	},
	allowPositionals: true,
	tokens: true,
});
// `--embeddings [MODEL]`: the word after the flag, when it is not another flag, names the model.
const flagAt = tokens.findIndex((t) => t.kind === 'option' && t.name === 'embeddings');
const named = tokens[flagAt + 1];
const embedder = flags.embeddings
	? createEmbedder({
			model: flagAt >= 0 && named?.kind === 'positional' ? named.value : DEFAULT_EMBEDDING_MODEL,
			baseUrl: flags['base-url'],
		})
	: null;

const supportOf = await loadSupport();
const all: Measured[] = [];
const reranked: Measured[] = [];
const rows: string[][] = [];
for (const labelled of readEvidenceSet(flags.dev ? DEV_DIR : SET_DIR)) {
	const { text } = await readBook(join(BOOKS_DIR, labelled.book));
	const chapters = chaptersOf(text);
	const index = new PassageIndex(text, chunkText(text, DEFAULTS.chunkSize, DEFAULTS.encoding));
	const sentences = labelled.sentences.map((s) => s.text);
	const chapterOf = (p: { start: number }) => chapterAt(chapters, p.start)?.title ?? DASH;
	const claimRanks = labelled.sentences.map((sentence) => {
		const best = new Map<string, number>();
		for (const claim of fakeClaims(sentence.text))
			index.rank(claim, DEPTH, CLAIM_RANK).forEach((hit, i) => {
				const chapter = chapterOf(hit);
				best.set(chapter, Math.min(best.get(chapter) ?? Infinity, i + 1));
			});
		return best;
	});
	const measure = (retrieved: readonly Retrieved[]) =>
		labelled.sentences.map((sentence, i): Measured => {
			const { passages, support, dense } = retrieved[i]!;
			return {
				sentence,
				chapters: passages.map(chapterOf),
				claimRanks: claimRanks[i]!,
				top1Score: passages[0]?.score ?? 0,
				support,
				dense,
			};
		});
	const measured = measure(retrieve(index, sentences, supportOf, null));
	if (flags.sentences)
		for (const m of measured)
			process.stderr.write(
				`${within(m, 3) ? '+' : '-'} [${m.sentence.kind}: ${m.sentence.chapters.join(' + ')}] ${m.sentence.text}\n    -> ${m.chapters.slice(0, 3).join(' | ')}\n`,
			);
	all.push(...measured);
	rows.push(row(labelled.book, measured));
	if (embedder) {
		const dense = await embedded(labelled.book, text, index, sentences, embedder);
		const byRerank = measure(retrieve(index, sentences, supportOf, dense));
		reranked.push(...byRerank);
		rows.push(row(`${labelled.book}, reranked`, byRerank));
	}
}
rows.push(row('**all**', all));
if (embedder) rows.push(row('**all, reranked**', reranked));

const date = new Date().toISOString().slice(0, 10);
const report = [
	`# Evidence retrieval on the labelled set, ${date}`,
	'',
	`Measured at commit ${commit}${dirty ? ' (with uncommitted changes to source/)' : ''} by \`node --import tsx bench/evidence.ts${flags.dev ? ' --dev' : ''}\`: ${all.length} sentences of`,
	`${flags.dev ? 'test/fixtures/evidence-dev/ (the development set)' : 'test/fixtures/evidence-set/'}, each ranked over its whole book (passages of the book chunked at the`,
	`defaults, ${DEPTH} asked for). Right chapter among the first 1 / 3 / 10 passages (two-chapter sentences:`,
	'either chapter counts, except in "both in top-3"); AUC of true against invented sentences.',
	`Claims: each sentence split at ";", "and" and commas (the test suite's fake judge's rule, standing in for a model's`,
	`claims), each claim's passages ranked for it alone, ${CLAIM_PASSAGES} a claim shown (\`faithfulness --top\`'s default).`,
	`Support: ${supportOf ? `the support score of the top ${TOP_PASSAGES} passages` : 'n/a (no source/evidence/support.ts in this checkout)'}.`,
	embedder
		? `Reranked rows: BM25's passages reordered by ${embedder.model}'s embeddings (${embedder.server}), evidence/rerank.ts; dense support of the top ${TOP_PASSAGES}.`
		: 'No rerank measured (run with --embeddings [MODEL] and a key).',
	'',
	table(rows),
	'',
].join('\n');
process.stdout.write(report);
if (!flags['no-write']) {
	const file = join(ROOT, 'bench', 'results', `${date}-evidence${flags.dev ? '-dev' : ''}-${commit}.md`);
	writeFileSync(file, report);
	process.stderr.write(`… written to ${file}\n`);
}
