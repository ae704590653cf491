import { parse as parseYaml } from 'yaml';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { readBook, type LoadedBook } from '../book/read.ts';
import { DEFAULTS, makeConfig } from '../config.ts';
import { BATCH_PRICE, type Book, type Chunk, type RunConfig } from '../domain.ts';
import { UserError } from '../errors.ts';
import { defaultModel } from '../llm/create.ts';
import { callCost, isPriced, loadPrices, type PriceTable } from '../llm/prices.ts';
import { loadTemplates } from '../prompts/load.ts';
import { estimateRun } from '../summarize/estimate.ts';
import type { PlanContext } from '../summarize/planner.ts';
import { plannerFor, newRun } from '../summarize/run.ts';
import { clash, studyCells, type Cell, type StudyBook } from '../study/grid.ts';
import { parseStudy, studyError, type StudySpec } from '../study/spec.ts';
import { chunkText } from '../text/chunk.ts';
import { countTokens } from '../text/tokens.ts';
import { usd } from '../format/cost.ts';
import { DASH } from '../format/missing.ts';
import { bookInfo } from './run.ts';

/**
 * A study file read and its grid planned: every cell's book read and chunked, its configuration
 * checked and its calls and cost estimated, before anything is created or spent. Any problem is
 * one line (exit 2).
 */

export interface PlannedCell extends Cell {
	config: RunConfig;
	chunks: Chunk[];
	book: Cell['book'] & { loaded: LoadedBook; info: Book };
	ctx: PlanContext;
	calls: number;
	cost: number;
	priced: boolean;
	/** Tokens of the final summary the run is expected to make (what scoring it reads). */
	finalTokens: number;
}

export interface StudyPlan {
	spec: StudySpec;
	file: string;
	cells: PlannedCell[];
	concurrency: number;
}

const BOOK_EXTENSIONS = new Set(['.txt', '.epub']);

export async function readStudy(file: string): Promise<StudySpec> {
	const yaml = /\.ya?ml$/iu.test(file);
	let text: string;
	try {
		text = await readFile(file, 'utf8');
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		throw studyError(
			file,
			code === 'ENOENT'
				? 'no such file; give the path of a JSON or YAML study file'
				: `cannot be read (${code ?? 'error'})`,
		);
	}
	let value: unknown;
	try {
		value = yaml ? parseYaml(text, { prettyErrors: false }) : JSON.parse(text);
	} catch (error) {
		const first = (error as Error).message.split('\n')[0];
		throw studyError(file, `not valid ${yaml ? 'YAML' : 'JSON'} (${first}); fix the syntax`);
	}
	return parseStudy(value, file);
}

/** The study's books, paths taken from the study file's folder. */
async function studyBooks(spec: StudySpec, file: string): Promise<StudyBook[]> {
	const base = dirname(resolve(file));
	let paths: string[];
	if (spec.folder !== undefined) {
		const folder = resolve(base, spec.folder);
		const names = await readdir(folder).catch(() => {
			throw studyError(file, `folder: ${folder} cannot be read; use a folder of .txt or .epub files`);
		});
		paths = names
			.filter((n) => BOOK_EXTENSIONS.has(extname(n).toLowerCase()))
			.sort()
			.map((n) => resolve(folder, n));
		if (paths.length === 0)
			throw studyError(
				file,
				`folder: ${folder} holds no .txt or .epub file; add books or use "books": [...]`,
			);
	} else paths = spec.books!.map((p) => resolve(base, p));
	return paths.map((path) => ({ path, key: basename(path, extname(path)) }));
}

/** A study file's plan priced as the environment says (`$BOOOOK_PRICES`): for its report, which runs nothing. */
export function planStudyPriced(file: string, env?: NodeJS.ProcessEnv): Promise<StudyPlan> {
	return planStudy(file, loadPrices(undefined, env));
}

export async function planStudy(file: string, prices: PriceTable): Promise<StudyPlan> {
	const spec = await readStudy(file);
	const books = await studyBooks(spec, file);
	const cells = studyCells(spec, books, defaultModel, DEFAULTS);
	const clashing = clash(cells);
	if (clashing)
		throw studyError(
			file,
			`cells ${clashing[0].key} and ${clashing[1].key} would share session ${clashing[0].sessionId}; give the books or models names that differ`,
		);
	const templates = await loadTemplates(null);
	const loaded = new Map<string, Promise<LoadedBook>>();
	const chunked = new Map<string, Chunk[]>();
	const concurrency = spec.concurrency ?? DEFAULTS.concurrency;
	const planned: PlannedCell[] = [];
	for (const cell of cells) {
		const where = (message: string) => studyError(file, `cell ${cell.key}: ${message}`);
		let book: LoadedBook;
		try {
			if (!loaded.has(cell.book.path)) loaded.set(cell.book.path, readBook(cell.book.path));
			book = await loaded.get(cell.book.path)!;
		} catch (error) {
			throw error instanceof UserError ? where(error.message) : error;
		}
		let config: RunConfig;
		try {
			config = makeConfig({
				method: cell.method,
				provider: cell.provider,
				model: cell.model,
				baseUrl: cell.baseUrl,
				chunkSize: cell.chunkSize,
				contextWindow: cell.contextWindow,
				maxSummary: spec.maxSummary,
				concurrency,
			});
		} catch (error) {
			throw error instanceof UserError ? where(error.message.replace(/--(\w)/gu, '')) : error;
		}
		const chunkKey = `${cell.book.path}\n${config.chunkSize}\n${config.encoding}`;
		if (!chunked.has(chunkKey))
			chunked.set(chunkKey, chunkText(book.text, config.chunkSize, config.encoding));
		const chunks = chunked.get(chunkKey)!;
		const ctx: PlanContext = {
			config,
			templates,
			book: book.text,
			tokens: (t) => countTokens(t, config.encoding),
		};
		const problem = plannerFor(config.method).windowProblem(newRun(config, chunks), ctx);
		if (problem) throw where(problem);
		const estimate = estimateRun(config, chunks, ctx);
		planned.push({
			...cell,
			book: { ...cell.book, loaded: book, info: bookInfo(book, chunks) },
			config,
			chunks,
			ctx,
			calls: estimate.calls,
			// Batched calls at the batch price (prices are per token, so the parts add up).
			cost:
				callCost(prices, config.model, estimate.usage, config.provider).cost -
				(spec.batch
					? (1 - BATCH_PRICE) * callCost(prices, config.model, estimate.batchable, config.provider).cost
					: 0),
			priced: isPriced(prices, config.model, config.provider),
			finalTokens: estimate.finalTokens,
		});
	}
	return { spec, file, cells: planned, concurrency };
}

/** The plan as cells of text, header first; `status` says where each cell stands now. */
export function planTable(plan: StudyPlan, status: (cell: PlannedCell) => string): string[][] {
	return [
		['book', 'method', 'model', 'chunk', 'window', 'chunks', 'calls', 'est. cost', 'status'],
		...plan.cells.map((c) => [
			c.book.key,
			c.method,
			c.provider === 'extractive' ? `extractive ${c.model}` : `${c.provider} ${c.model}`,
			String(c.chunkSize),
			String(c.contextWindow),
			String(c.chunks.length),
			`~${c.calls}`,
			c.priced ? usd(c.cost) : DASH,
			status(c),
		]),
	];
}
