/**
 * Prompt templates: `{}` slots filled in order, as the authors wrote them. Only the template is
 * scanned for slots, so braces inside a book or a summary are inserted verbatim.
 */

/** Template ids and the number of `{}` slots each must have. */
export const TEMPLATE_SLOTS = {
	'hier-init': 2,
	'hier-merge': 2,
	'hier-merge-context': 3,
	'inc-init': 3,
	'inc-update': 4,
	'inc-compress': 4,
	clean: 1,
} as const;

export type TemplateId = keyof typeof TEMPLATE_SLOTS;
export type Templates = Record<TemplateId, string>;

export function countSlots(template: string): number {
	return template.split('{}').length - 1;
}

export function fill(template: string, values: readonly (string | number)[]): string {
	const parts = template.split('{}');
	if (parts.length - 1 !== values.length) {
		throw new Error(`template has ${parts.length - 1} slots but ${values.length} values were given`);
	}
	let out = parts[0]!;
	for (let i = 0; i < values.length; i++) out += String(values[i]) + parts[i + 1]!;
	return out;
}
