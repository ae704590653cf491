/**
 * Every trust figure of issue 37 in one table, measured with a model through the real CLI, as a
 * user runs it, so the first person with a key can publish them in bench/results/:
 *
 * - evidence: the right chapter first and among the first three passages for the labelled set's
 *   single-event sentences, and both chapters among the first three for its two-chapter ones, by
 *   BM25 alone and reranked by the embeddings (`evidence --json`, `evidence --json --embeddings`);
 * - faithfulness: the judge's faithful share of the labelled set's true sentences and of its
 *   invented ones, by sentence and by claim, with the not-found and contradicted shares where
 *   `report --json` gives them (`faithfulness`, then `report --json`);
 * - memory probes: the reader's accuracy on each book's final summary, its floor with the summary
 *   hidden and the longest- and shortest-option shortcut, where `memory --json` gives them, and
 *   chance (`run` each book, then `memory --json` over all of them, so each book's wrong options
 *   come from the others).
 *
 * A figure the commands do not print (yet) shows as "—". The labelled set's sentences are imported
 * as summaries (`import summary`): the true ones as one summary, the invented ones as another.
 *
 * Run: OPENAI_API_KEY=… node --import tsx bench/trust.ts [--base-url URL] (an OpenAI-compatible
 * server: then a key is not needed) [--model gpt-4o-mini] (the faithfulness judge, the memory
 * reader and the runs' summarizer) [--embeddings text-embedding-3-small] [--books a.txt,b.txt]
 * (default: every book of the labelled set; memory needs two) [--method hier|inc] [--questions 30]
 * [--sessions-dir DIR] (kept, and reused by a second run: what is there is not made again; default
 * a temporary folder, removed) [--no-write]. Writes the table, dated and with the commit, to
 * bench/results/<date>-trust-<commit>.md.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { DASH } from '../source/format/missing.ts';
import { percent } from '../source/format/percent.ts';
import { BOOKS_DIR, readEvidenceSet, type LabelledBook } from '../test/support/evidence-set.ts';
import {
	faithful,
	memoryOf,
	placed,
	type EvidenceJson,
	type Faithful,
	type Json,
	type Memory,
	type Placed,
} from './trust-read.ts';
import { benchKit, ROOT } from './kit.ts';

const BIN = join(ROOT, 'bin', 'booook.js');
const run = promisify(execFile);

const { values: flags } = parseArgs({
	options: {
		'base-url': { type: 'string' },
		model: { type: 'string', default: 'gpt-4o-mini' },
		embeddings: { type: 'string', default: 'text-embedding-3-small' },
		books: { type: 'string' },
		method: { type: 'string', default: 'hier' },
		questions: { type: 'string', default: '30' },
		'sessions-dir': { type: 'string' },
		'no-write': { type: 'boolean', default: false },
	},
});
const kit = benchKit('bench/trust', () => false);
const questions = kit.positive('questions', flags.questions);
if (flags.method !== 'hier' && flags.method !== 'inc') kit.fail(`--method ${flags.method}: use hier or inc`);
const baseUrl = flags['base-url'];
const key = process.env.OPENAI_API_KEY;
if (!key && !baseUrl)
	kit.fail('needs a key: set OPENAI_API_KEY, or give --base-url URL for an OpenAI-compatible server');
// A local server asks for no key, but the client sends one: any word does.
const env = { ...process.env, OPENAI_API_KEY: key || 'no-key' };
const server = baseUrl ? ['--base-url', baseUrl] : [];
const model = ['--provider', 'openai', '--model', flags.model, ...server];

const wanted = flags.books?.split(',').map((b) => b.trim());
const set = readEvidenceSet().filter((b) => !wanted || wanted.includes(b.book));
if (wanted)
	for (const b of wanted) if (!set.some((s) => s.book === b)) kit.fail(`--books: no labelled book ${b}`);
if (set.length === 0) kit.fail('--books: no book left to measure');

let dir = flags['sessions-dir'];
if (!dir) {
	const made = mkdtempSync(join(tmpdir(), 'booook-trust-'));
	kit.cleanups.push(() => rmSync(made, { recursive: true, force: true }));
	dir = made;
}
// The runs apart from the imported summaries: memory takes every run of its folder as another book's.
const runs = join(dir, 'runs');
const imported = join(dir, 'imported');
mkdirSync(runs, { recursive: true });
mkdirSync(imported, { recursive: true });

/** The CLI's stdout for `args`; a failure stops the benchmark with the command and its last words. */
async function booook(args: string[]): Promise<string> {
	kit.progress(`booook ${args.join(' ')}`);
	try {
		const { stdout } = await run(process.execPath, [BIN, ...args], { env, maxBuffer: 1 << 28 });
		return stdout;
	} catch (error) {
		const { stderr, message } = error as { stderr?: string; message: string };
		return kit.fail(
			`booook ${args[0]} failed: ${(stderr ?? message).trim().split('\n').slice(-3).join(' / ')}`,
		);
	}
}

const json = async <T>(args: string[]): Promise<T> => JSON.parse(await booook([...args, '--json'])) as T;

/** A session of `dir` made by `make` unless it is there already (a second run reuses it). */
async function once(sessions: string, id: string, make: () => Promise<unknown>): Promise<void> {
	if (!existsSync(join(sessions, id))) await make();
}

/** `placed`, its refusal as the benchmark's one-line failure. */
function placedOr(book: LabelledBook, shown: EvidenceJson): Placed {
	try {
		return placed(book, shown);
	} catch (error) {
		return kit.fail((error as Error).message);
	}
}

const slug = (book: string) => book.replace(/\.[^.]+$/u, '').replace(/[^a-z0-9]+/giu, '-');

const bm25: Placed[] = [];
const dense: Placed[] = [];
const faithTrue: Faithful[] = [];
const faithInvented: Faithful[] = [];
let embeddingModel = flags.embeddings;
for (const book of set) {
	const id = `trust-${slug(book.book)}`;
	const bookFile = join(BOOKS_DIR, book.book);
	for (const [suffix, kinds] of [
		['true', ['single', 'two']],
		['invented', ['invented']],
	] as const) {
		const summary = join(imported, `${id}-${suffix}.txt`);
		// One sentence a line: the summary splits as the labelled set lists it.
		writeFileSync(
			summary,
			`${book.sentences
				.filter((s) => (kinds as readonly string[]).includes(s.kind))
				.map((s) => s.text)
				.join('\n')}\n`,
		);
		await once(imported, `${id}-${suffix}`, () =>
			booook([
				'import',
				'summary',
				'--book',
				bookFile,
				'--summary',
				summary,
				'--session',
				`${id}-${suffix}`,
				'--sessions-dir',
				imported,
			]),
		);
	}
	const at = ['--sessions-dir', imported];
	bm25.push(placedOr(book, await json<EvidenceJson>(['evidence', `${id}-true`, '--top', '3', ...at])));
	const reranked = await json<EvidenceJson & { embeddings?: { model?: string } }>([
		'evidence',
		`${id}-true`,
		'--top',
		'3',
		'--embeddings',
		flags.embeddings,
		...server,
		...at,
	]);
	embeddingModel = reranked.embeddings?.model ?? embeddingModel;
	dense.push(placedOr(book, reranked));
	for (const [suffix, into] of [
		['true', faithTrue],
		['invented', faithInvented],
	] as const) {
		await booook(['faithfulness', `${id}-${suffix}`, ...model, ...at]);
		into.push(faithful(await json<Json>(['report', `${id}-${suffix}`, ...at])));
	}
	await once(runs, id, () =>
		booook([
			'run',
			bookFile,
			'--headless',
			'--method',
			flags.method!,
			...model,
			'--session',
			id,
			'--sessions-dir',
			runs,
		]),
	);
}
const memory =
	set.length < 2
		? null
		: await json<Json[]>([
				'memory',
				...set.map((b) => `trust-${slug(b.book)}`),
				'--questions',
				`${questions}`,
				...model,
				'--sessions-dir',
				runs,
			]);
const memories = set.map((b) => {
	const found = memory?.find((m) => m.session === `trust-${slug(b.book)}`);
	return found ? memoryOf(found) : null;
});

const cell = (x: number | null) => percent(x, DASH, 1);
const ratio = (hits: number, n: number) => (n === 0 ? DASH : `${percent(hits / n, DASH, 0)} (${hits}/${n})`);
const sum = (rows: readonly Placed[], key: keyof Placed) => rows.reduce((a, r) => a + r[key], 0);
/** Over summaries: the mean of each book's share (LongEval scores a system so), "—" unless every book has one. */
const meanOf = (xs: readonly (number | null)[]) =>
	xs.every((x) => x !== null) ? xs.reduce((a, x) => a + x!, 0) / xs.length : null;
/** Pooled over books' questions when each gives its counts. */
const pooled = (ms: readonly (Memory | null)[]) =>
	ms.every((m) => m?.correct != null && m.n)
		? ms.reduce((a, m) => a + m!.correct!, 0) / ms.reduce((a, m) => a + m!.n!, 0)
		: null;

type Row = [string, ...string[], string];
const rows: Row[] = [];
const placedRows = (name: string, rowsOf: Placed[]) => {
	rows.push([
		`evidence${name}: single-event, right chapter first`,
		...rowsOf.map((r) => ratio(r.top1, r.single)),
		ratio(sum(rowsOf, 'top1'), sum(rowsOf, 'single')),
		'evidence --json: evidence[].passages[0].chapter.title',
	]);
	rows.push([
		`evidence${name}: single-event, right chapter in the first 3`,
		...rowsOf.map((r) => ratio(r.top3, r.single)),
		ratio(sum(rowsOf, 'top3'), sum(rowsOf, 'single')),
		'evidence --json: evidence[].passages[0..2].chapter.title',
	]);
	rows.push([
		`evidence${name}: two-chapter, both in the first 3`,
		...rowsOf.map((r) => ratio(r.both, r.two)),
		ratio(sum(rowsOf, 'both'), sum(rowsOf, 'two')),
		'evidence --json: evidence[].passages[0..2].chapter.title',
	]);
};
placedRows(' (BM25)', bm25);
placedRows(` (reranked by ${embeddingModel})`, dense);
const faithRow = (name: string, of: Faithful[], key: keyof Faithful, source: string) =>
	rows.push([name, ...of.map((f) => cell(f[key])), cell(meanOf(of.map((f) => f[key]))), source]);
faithRow(
	'faithfulness: true sentences, faithful share',
	faithTrue,
	'sentences',
	'report --json: faithfulness.validators.*.sentences.faithful_share, else .faithful_share',
);
faithRow(
	'faithfulness: true sentences, claims supported',
	faithTrue,
	'claims',
	'report --json: …claims.faithful_share, else claims.supported / claims.claims',
);
faithRow(
	'faithfulness: true sentences, not found',
	faithTrue,
	'notFound',
	'report --json: …sentences.shares.not_found',
);
faithRow(
	'faithfulness: true sentences, contradicted',
	faithTrue,
	'contradicted',
	'report --json: …sentences.shares.contradicted',
);
faithRow(
	'faithfulness: invented sentences, faithful share',
	faithInvented,
	'sentences',
	'as for true sentences',
);
faithRow(
	'faithfulness: invented sentences, claims supported',
	faithInvented,
	'claims',
	'as for true sentences',
);
const memoryRow = (
	name: string,
	key: Exclude<keyof Memory, 'correct' | 'n'>,
	all: number | null,
	source: string,
) => rows.push([name, ...memories.map((m) => cell(m?.[key] ?? null)), cell(all), source]);
memoryRow(
	'memory: accuracy on the final summary',
	'accuracy',
	pooled(memories),
	'memory --json: [].readers[shown summary].overall.accuracy',
);
memoryRow(
	'memory: floor, summary hidden',
	'floor',
	meanOf(memories.map((m) => m?.floor ?? null)),
	'memory --json: [].readers[shown summary].floor.overall.accuracy, else a reader shown none',
);
memoryRow(
	'memory: shortcut, always the longest option',
	'longest',
	meanOf(memories.map((m) => m?.longest ?? null)),
	'memory --json: [].readers[shown summary].shortcuts.longest',
);
memoryRow(
	'memory: shortcut, always the shortest option',
	'shortest',
	meanOf(memories.map((m) => m?.shortest ?? null)),
	'memory --json: [].readers[shown summary].shortcuts.shortest',
);
memoryRow(
	'memory: chance',
	'chance',
	meanOf(memories.map((m) => m?.chance ?? null)),
	'memory --json: [].readers[].chance',
);

const header = ['figure', ...set.map((b) => b.book), 'all', 'read from'];
const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
const git = (...args: string[]) => run('git', args, { cwd: ROOT }).then(({ stdout }) => stdout.trim());
const commit = await git('rev-parse', '--short', 'HEAD');
const date = new Date().toISOString().slice(0, 10);
const report = [
	`# Issue 37's trust figures, ${date}`,
	'',
	`Measured at commit ${commit} by \`node --import tsx bench/trust.ts\`: ${flags.model} (judge, reader, runs: ${flags.method}) and ${embeddingModel} at ${baseUrl ?? 'OpenAI'}, through the CLI.`,
	`Evidence and faithfulness: the labelled set (test/fixtures/evidence-set/), its true and its invented sentences each imported as a summary. Memory: ${questions} questions a book${memory ? '' : ' (not measured: it needs two books)'}; "all" pools questions, and means the books' shares elsewhere.`,
	'',
	line(header),
	line(header.map(() => '---')),
	...rows.map(line),
	'',
].join('\n');
process.stdout.write(report);
if (!flags['no-write']) {
	const file = join(ROOT, 'bench', 'results', `${date}-trust-${commit}.md`);
	writeFileSync(file, report);
	process.stderr.write(`… written to ${file}\n`);
}
kit.stop(0);
