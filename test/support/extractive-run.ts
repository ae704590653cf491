import assert from 'node:assert/strict';
import { booook } from './cli.ts';

/** A session `id` in `dir`: the extractive baseline's run over `book` in chunks of 4,096 tokens (every sentence copied from the book). */
export async function extractiveRun(book: string, dir: string, id: string): Promise<void> {
	const made = await booook([
		'run',
		book,
		'--provider',
		'extractive',
		'--chunk-size',
		'4096',
		'--headless',
		'--session',
		id,
		'--sessions-dir',
		dir,
	]);
	assert.equal(made.code, 0, made.stderr);
}
