import type { Method, ProviderName } from '../domain.ts';
import type { StudySpec } from './spec.ts';

/**
 * A study's grid: every book × method × provider/model × chunk size × context window is one cell,
 * run as one ordinary session. The session id is made from the cell, so a process killed between
 * creating a session and recording it finds it again instead of making a second one.
 */

export interface StudyBook {
	/** The file, as the study runs it. */
	path: string;
	/** A short name unique within the study (the file's name without its extension). */
	key: string;
}

/** One configuration of the grid: a row of the results table. */
export interface CellConfig {
	method: Method;
	provider: ProviderName;
	model: string;
	baseUrl: string | null;
	chunkSize: number;
	contextWindow: number;
}

export interface Cell extends CellConfig {
	book: StudyBook;
	/** `<book>/<config>`: the cell's name in the study record and the progress lines. */
	key: string;
	/** The configuration without the book: cells with the same one are a row of the results. */
	configKey: string;
	sessionId: string;
}

/** The grid in a stable order: book, then method, provider, chunk size, context window. */
export function studyCells(
	spec: StudySpec,
	books: readonly StudyBook[],
	defaultModel: (provider: ProviderName) => string,
	defaults: { chunkSize: number; contextWindow: number },
): Cell[] {
	const cells: Cell[] = [];
	for (const book of books) {
		for (const method of spec.methods) {
			for (const p of spec.providers) {
				for (const chunkSize of spec.chunkSizes ?? [defaults.chunkSize]) {
					for (const contextWindow of spec.contextWindows ?? [defaults.contextWindow]) {
						const config: CellConfig = {
							method,
							provider: p.provider,
							model: p.model ?? defaultModel(p.provider),
							baseUrl: p.baseUrl ?? null,
							chunkSize,
							contextWindow,
						};
						const configKey = configKeyOf(config);
						cells.push({
							...config,
							book,
							key: `${book.key}/${configKey}`,
							configKey,
							sessionId: `${spec.name}-${idPart(book.key, 30)}-${idPart(configKey, 56)}`,
						});
					}
				}
			}
		}
	}
	return cells;
}

export function configKeyOf(c: CellConfig): string {
	return `${c.method}-${c.provider}-${c.model}-c${c.chunkSize}-w${c.contextWindow}`;
}

/** Two cells that would share a session (a book or model named twice): the first pair, or null. */
export function clash(cells: readonly Cell[]): [Cell, Cell] | null {
	const seen = new Map<string, Cell>();
	for (const cell of cells) {
		const other = seen.get(cell.sessionId);
		if (other) return [other, cell];
		seen.set(cell.sessionId, cell);
	}
	return null;
}

/**
 * A piece of a session id: the characters an id allows, cut so the whole id (study name of at most
 * 40, book 30, configuration 56) stays within an id's 128. A cut that makes two ids one is `clash`'s.
 */
function idPart(text: string, most: number): string {
	return text
		.replace(/[^A-Za-z0-9._-]+/gu, '-')
		.replace(/\.{2,}/gu, '.')
		.slice(0, most);
}
