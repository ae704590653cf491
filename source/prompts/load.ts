import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { badInput } from '../errors.ts';
import { TEMPLATE_SLOTS, countSlots, type TemplateId, type Templates } from '../summarize/templates.ts';

export const SHIPPED_PROMPTS = resolve(dirname(fileURLToPath(import.meta.url)), '../../prompts');

/**
 * Reads every template, from `dir` where it has one and from the shipped prompts otherwise, and
 * checks slot counts up front so a bad template stops a run before any call is made.
 */
export async function loadTemplates(dir?: string | null): Promise<Templates> {
	if (dir && !existsSync(dir)) throw badInput(`--prompts ${dir}: no such directory; give a folder of prompt templates (see prompts/README.md)`);
	const out = {} as Templates;
	for (const id of Object.keys(TEMPLATE_SLOTS) as TemplateId[]) {
		const own = dir ? join(dir, `${id}.txt`) : null;
		const path = own && existsSync(own) ? own : join(SHIPPED_PROMPTS, `${id}.txt`);
		let text: string;
		try {
			text = await readFile(path, 'utf8');
		} catch (error) {
			throw badInput(`${path}: cannot read prompt template (${(error as NodeJS.ErrnoException).code ?? 'error'}); restore it or point --prompts elsewhere`);
		}
		const slots = countSlots(text);
		if (slots !== TEMPLATE_SLOTS[id]) {
			throw badInput(`${path}: template "${id}" has ${slots} {} slots but needs ${TEMPLATE_SLOTS[id]}; see prompts/README.md`);
		}
		out[id] = text;
	}
	return out;
}
