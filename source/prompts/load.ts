import { readFile } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { badInput } from '../errors.ts';
import { TEMPLATE_SLOTS, TemplateError, slotMismatch, type TemplateId, type Templates } from '../summarize/templates.ts';

export const SHIPPED_PROMPTS = resolve(dirname(fileURLToPath(import.meta.url)), '../../prompts');

/**
 * Reads every template (summarizing and annotating alike), from `dir` where it has `<id>.txt` and
 * from the shipped prompts otherwise, and checks each one's syntax and slots up front, so a bad
 * template stops a command before any call is made rather than halfway through a paid run.
 */
export async function loadTemplates(dir?: string | null): Promise<Templates> {
	if (dir && !existsSync(dir)) throw badInput(`--prompts ${dir}: no such directory; give a folder of prompt templates (see prompts/README.md)`);
	// A file would be read as a folder holding no templates, and every shipped one used in silence.
	if (dir && !statSync(dir).isDirectory()) throw badInput(`--prompts ${dir}: is a file, not a folder; give the folder that holds your <id>.txt templates (see prompts/README.md)`);
	const out = {} as Templates;
	for (const id of Object.keys(TEMPLATE_SLOTS) as TemplateId[]) {
		const own = dir ? join(dir, `${id}.txt`) : null;
		const overridden = own !== null && existsSync(own);
		const path = overridden ? own : join(SHIPPED_PROMPTS, `${id}.txt`);
		const fix = overridden ? 'fix it, or delete it to use the shipped one (see prompts/README.md)' : 'restore the shipped file (see prompts/README.md)';
		let text: string;
		try {
			text = await readFile(path, 'utf8');
		} catch (error) {
			throw badInput(`${path}: cannot read prompt template "${id}" (${(error as NodeJS.ErrnoException).code ?? 'error'}); ${overridden ? fix : 'restore it or point --prompts elsewhere'}`);
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

