import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { badInput } from '../errors.ts';
import { MAX_BOOK_BYTES, megabytes, tooBig } from './limits.ts';
import { unwrapParagraphs } from './paragraphs.ts';
import { decodeTxt, txtTitle } from './txt.ts';

/**
 * The one entry point for book files: checks the path, reads the bytes and hands them to the
 * reader for the file type. Only reads; nothing is written anywhere.
 */

export interface LoadedBook {
	/**
	 * Normalized text: LF line ends, no BOM, no trailing whitespace, one line per paragraph (see
	 * `paragraphs.ts`). Later offsets index into it.
	 */
	text: string;
	title: string;
	/** Hex sha256 of `text` (UTF-8). */
	sha256: string;
	/** Absolute path it was read from. */
	source: string;
}

const ACCEPTED = 'give a .txt (UTF-8) or .epub file';

/**
 * Reads a .txt or .epub book of at most MAX_BOOK_BYTES of text. Every problem with the input is a
 * `badInput` UserError (exit code 2).
 */
export async function readBook(path: string): Promise<LoadedBook> {
	const label = path;
	const source = resolve(path);
	const bytes = await readBytes(source, label);
	const extension = extname(source).toLowerCase();
	let text: string;
	let title: string | null;
	if (extension === '.txt') {
		const decoded = decodeTxt(bytes, label);
		// The title is read from the lines as they stand: unwrapped, a "Title:" line would run on.
		title = txtTitle(decoded);
		text = unwrapParagraphs(decoded);
	} else {
		// Loaded only for an EPUB: its zip and HTML parsers are a tenth of a .txt run's start-up.
		const { readEpub } = await import('./epub.ts');
		({ text, title } = await readEpub(bytes, label));
	}
	return { text, title: title ?? fileTitle(source), sha256: sha256(text), source };
}

async function readBytes(source: string, label: string): Promise<Uint8Array> {
	try {
		const info = await stat(source);
		if (info.isDirectory()) throw badInput(`${label}: is a directory, not a book file; ${ACCEPTED}`);
		if (!info.isFile()) throw badInput(`${label}: not a regular file; ${ACCEPTED}`);
		// The type is checked only once the file is known to exist, so a typo reads as "no such file".
		const extension = extname(source).toLowerCase();
		if (extension !== '.txt' && extension !== '.epub') {
			const type = extension === '' ? 'file type (no extension)' : `file type "${extname(source)}"`;
			throw badInput(`${label}: unsupported ${type}; ${ACCEPTED}`);
		}
		// An EPUB's text is measured as it is unpacked (its pictures take room in the file, not in the text).
		if (extension === '.txt' && info.size > MAX_BOOK_BYTES)
			throw tooBig(label, `the file is ${megabytes(info.size)}`);
		return await readFile(source);
	} catch (error) {
		if (!isFsError(error)) throw error;
		if (error.code === 'ENOENT' || error.code === 'ENOTDIR')
			throw badInput(`${label}: no such file; check the path`);
		if (error.code === 'EACCES' || error.code === 'EPERM')
			throw badInput(`${label}: permission denied; make the file readable`);
		if (error.code === 'EISDIR') throw badInput(`${label}: is a directory, not a book file; ${ACCEPTED}`);
		throw badInput(`${label}: cannot be read (${error.code}); check the file`);
	}
}

function isFsError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
	return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

/** "pride-and-prejudice.txt" -> "Pride and prejudice": the name, readable, when the book names no title. */
export function fileTitle(path: string): string {
	const name = basename(path, extname(path));
	const words = name.replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
	if (words === '') return name;
	return words === words.toLowerCase() ? words.charAt(0).toUpperCase() + words.slice(1) : words;
}

export function sha256(text: string): string {
	return createHash('sha256').update(text, 'utf8').digest('hex');
}
