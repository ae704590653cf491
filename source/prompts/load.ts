import { open } from 'node:fs/promises';
import { constants, existsSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { badInput } from '../errors.ts';
import { TEMPLATE_SLOTS, TemplateError, slotMismatch, type TemplateId, type Templates } from '../summarize/templates.ts';

export const SHIPPED_PROMPTS = resolve(dirname(fileURLToPath(import.meta.url)), '../../prompts');

/**
 * The largest template read: ten times the largest shipped one (the annotation prompt, 27 KB). A
 * bigger one is a mistake (a book given as a template), and would only fill the context window.
 */
export const MAX_TEMPLATE_BYTES = 256 * 1024;

/**
 * Reads every template (summarizing and annotating alike), from `dir` where it has `<id>.txt` and
 * from the shipped prompts otherwise, and checks each one's syntax and slots up front, so a bad
 * template stops a command before any call is made rather than halfway through a paid run.
 */
export async function loadTemplates(dir?: string | null): Promise<Templates> {
	if (dir && !existsSync(dir))
		throw badInput(`--prompts ${dir}: no such directory; give a folder of prompt templates (see prompts/README.md)`);
	// A file would be read as a folder holding no templates, and every shipped one used in silence.
	if (dir && !statSync(dir).isDirectory())
		throw badInput(
			`--prompts ${dir}: is a file, not a folder; give the folder that holds your <id>.txt templates (see prompts/README.md)`,
		);
	const out = {} as Templates;
	for (const id of Object.keys(TEMPLATE_SLOTS) as TemplateId[]) {
		const own = dir ? join(dir, `${id}.txt`) : null;
		const overridden = own !== null && existsSync(own);
		const path = overridden ? own : join(SHIPPED_PROMPTS, `${id}.txt`);
		const fix = overridden
			? 'fix it, or delete it to use the shipped one (see prompts/README.md)'
			: 'restore the shipped file (see prompts/README.md)';
		let text: string | null | { notAFile: string };
		try {
			text = await readCapped(path, MAX_TEMPLATE_BYTES);
		} catch (error) {
			throw badInput(`${path}: cannot read prompt template "${id}" (${(error as NodeJS.ErrnoException).code ?? 'error'}); ` +
`${overridden ? fix : 'restore it or point --prompts elsewhere'}`);
		}
		if (text === null)
			throw badInput(
				`${path}: template "${id}" is larger than ${MAX_TEMPLATE_BYTES / 1024} KB, too large for a prompt template; ${fix}`,
			);
		if (typeof text !== 'string') {
			const instead = 'put a text file there, or delete it to use the shipped one (see prompts/README.md)';
			throw badInput(`${path}: template "${id}" is ${text.notAFile}, not a regular file; ${overridden ? instead : fix}`);
		}
		let problem: string | null;
		try {
			problem = slotMismatch(text, TEMPLATE_SLOTS[id]);
		} catch (error) {
			if (!(error instanceof TemplateError)) throw error;
			problem = `is malformed: ${error.message}`;
		}
		if (problem !== null) throw badInput(`${path}: template "${id}" ${problem}; ${fix}`);
		out[id] = text;
	}
	return out;
}


/**
 * The file's UTF-8 text, or null when it is larger than `limit` bytes (then it is not read), or
 * what it is when it is not a regular file (a named pipe would make the read wait for a writer
 * forever; a device may never end).
 */
async function readCapped(path: string, limit: number): Promise<string | null | { notAFile: string }> {
	// Non-blocking, so that opening a named pipe returns at once instead of waiting for a writer.
	const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
	try {
		const stats = await handle.stat();
		if (!stats.isFile()) return { notAFile: kindOf(stats) };
		const { size } = stats;
		if (size > limit) return null;
		// The size is checked again on what was read: the file may have grown in between.
		const buffer = Buffer.alloc(limit + 1);
		let length = 0;
		for (;;) {
			const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
			if (bytesRead === 0) break;
			length += bytesRead;
			if (length > limit) return null;
		}
		return buffer.toString('utf8', 0, length);
	} finally {
		await handle.close();
	}
}

function kindOf(stats: Stats): string {
	if (stats.isFIFO()) return 'a named pipe (FIFO)';
	if (stats.isDirectory()) return 'a folder';
	if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
	if (stats.isSocket()) return 'a socket';
	return 'not a file';
}
