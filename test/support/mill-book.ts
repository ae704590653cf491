import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { booook } from './cli.ts';

/**
 * The small book of the kill-at-each-write tests: short enough that a command over it, killed after
 * each of its durable writes and run again, takes seconds.
 */

/** A small book of distinct sentences: two chunks of 1,024 tokens and a merge. */
export function smallBook(): string {
	const names = ['Ada', 'Bram', 'Cleo', 'Dov', 'Esme', 'Finn', 'Gwen', 'Hugo'];
	const paragraphs: string[] = [];
	for (let p = 0; p < 30; p++) {
		const who = names[p % names.length]!;
		const other = names[(p * 3 + 1) % names.length]!;
		paragraphs.push(
			`${who} walked to the mill on day ${p + 1} and spoke with ${other} about the river. ` +
				`The water rose ${p % 5} feet that night, and ${other} counted ${p * 7} sacks of grain. ` +
				`Later ${who} wrote a letter to the magistrate about the bridge at the ${p % 2 ? 'north' : 'south'} ford.`,
		);
	}
	return `${paragraphs.join('\n\n')}\n`;
}

/** Another small book, of other people and things: the other book a memory probe draws wrong options from. */
export function otherBook(): string {
	const names = ['Ines', 'Jory', 'Kasia', 'Lev', 'Maren', 'Nils'];
	const paragraphs: string[] = [];
	for (let p = 0; p < 30; p++) {
		const who = names[p % names.length]!;
		const other = names[(p * 5 + 2) % names.length]!;
		paragraphs.push(
			`${who} sailed the ferry across the bay in week ${p + 1} while ${other} mended the nets. ` +
				`A storm broke ${p % 4} hours before dawn, and ${other} lost ${p * 3} lanterns overboard. ` +
				`At the harbour ${who} sold herring to the innkeeper of the ${p % 2 ? 'east' : 'west'} quay.`,
		);
	}
	return `${paragraphs.join('\n\n')}\n`;
}

/** The small book as `mill.txt` in `dir` (or `text` as `name`). */
export async function bookFile(dir: string, name = 'mill.txt', text = smallBook()): Promise<string> {
	const file = join(dir, name);
	await writeFile(file, text);
	return file;
}

/**
 * A finished extractive run of the small book as session "mill", made without a kill: what scoring
 * and judging start from. `extra`: more options of the run (`--max-summary 80`: three sentences).
 */
export async function extractiveMill(sessions: string, book: string, ...extra: string[]): Promise<void> {
	const made = await booook([
		'run',
		book,
		'--provider',
		'extractive',
		'--chunk-size',
		'1024',
		'--headless',
		'--session',
		'mill',
		'--sessions-dir',
		sessions,
		...extra,
	]);
	assert.equal(made.code, 0, made.stderr);
}

/** `booook score mill` by the fake API's gpt-4o-mini at `baseUrl`, with `extra` options. */
export function scoreMillArgs(baseUrl: string, sessions: string, ...extra: string[]): string[] {
	return [
		'score',
		'mill',
		'--provider',
		'openai',
		'--model',
		'gpt-4o-mini',
		'--base-url',
		baseUrl,
		'--json',
		'--sessions-dir',
		sessions,
		...extra,
	];
}

/** The options of a run of the small book by the fake API's gpt-4o-mini at `baseUrl`, one call at a time. */
export function millRunOptions(baseUrl: string, sessions: string, method: 'hier' | 'inc' = 'hier'): string[] {
	return [
		'--provider',
		'openai',
		'--model',
		'gpt-4o-mini',
		'--base-url',
		baseUrl,
		'--chunk-size',
		'1024',
		'--max-summary',
		'200',
		'--method',
		method,
		'--concurrency',
		'1',
		'--headless',
		'--sessions-dir',
		sessions,
	];
}
