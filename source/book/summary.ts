import { readFile, stat } from 'node:fs/promises';
import { badInput } from '../errors.ts';
import { said, type Said } from '../program.ts';
import { MAX_BOOK_BYTES, megabytes } from './limits.ts';
import { normalizeNewlines } from './txt.ts';

/**
 * Reads a summary written elsewhere (`booook import summary --summary FILE`): UTF-8 text, its line
 * ends made LF and its trailing whitespace dropped. Every problem is a one-line `badInput` naming
 * `label` and the fix; nothing is written.
 */
export async function readSummary(path: string, label: Said): Promise<string> {
	let bytes: Uint8Array;
	try {
		const info = await stat(path);
		if (!info.isFile()) throw badInput(said`${label}: not a file; give the summary as a UTF-8 text file`);
		// A summary is shorter than its book: the book's limit is a generous bound.
		if (info.size > MAX_BOOK_BYTES)
			throw badInput(
				said`${label}: the file is ${megabytes(info.size)}, more than a book booook reads (${megabytes(MAX_BOOK_BYTES)}); give the summary's text only`,
			);
		bytes = await readFile(path);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ENOENT' || code === 'ENOTDIR') throw badInput(said`${label}: no such file; check the path`);
		if (code === 'EACCES' || code === 'EPERM')
			throw badInput(said`${label}: permission denied; make the file readable`);
		throw error;
	}
	let text: string;
	try {
		// NUL bytes decode without error but mean a binary file (or UTF-16) rather than a summary.
		if (bytes.includes(0)) throw new Error('NUL');
		text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
	} catch {
		throw badInput(said`${label}: not UTF-8 text (a binary file?); save the summary as a UTF-8 .txt file`);
	}
	const summary = normalizeNewlines(text).trimEnd();
	if (summary.trim() === '')
		throw badInput(said`${label}: the file is empty; give a file with the summary's text`);
	return summary;
}
