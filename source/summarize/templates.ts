import { counted } from '../format/count.ts';
/**
 * Prompt templates in the subset of Python's `str.format` the authors' prompts use: `{}` slots
 * filled in order, `{name}` slots filled by name, `{{` and `}}` for literal braces. We keep their
 * syntax so their files ship byte-for-byte. Only the template is scanned; a value is inserted
 * verbatim, so braces inside a book or a summary are never read as slots.
 */

/** What a template must contain: a number of `{}` slots, or the names of its `{name}` slots. */
export type SlotSpec = number | readonly string[];

/** Template ids (a template's file is `prompts/<id>.txt`) and the slots each must have. */
export const TEMPLATE_SLOTS = {
	'hier-init': 2,
	'hier-merge': 2,
	'hier-merge-context': 3,
	'inc-init': 3,
	'inc-update': 4,
	'inc-compress': 4,
	clean: 1,
	// BooookScore: summary, then the one sentence asked about.
	get_annotations: 2,
	// BooookScore batched (`--batch-size`): the summary and a numbered list of its sentences.
	get_annotations_v2: ['summary', 'sentences'],
	// Ours, after FABLES: a summary sentence split into atomic claims (the summary resolves its names).
	'faithfulness-claims': ['summary', 'sentence'],
	// Ours, after FABLES: one claim judged against the passages retrieved for it, with a quote from them
	// (not the whole summary: the claims are written to stand alone, and it would be sent once per claim).
	'faithfulness-judge': ['sentence', 'claim', 'evidence'],
	// Ours, after NarrativeXL's read-along questions: what the reader was shown, the numbered scene options.
	'memory-question': ['summary', 'options'],
	// Ours: the same question with nothing shown (the floor, NarrativeXL's no-context baseline): how much was read, the options.
	'memory-floor': ['read', 'options'],
	// Ours, after NarrativeXL's scene summaries: one stretch of a book, the summary's word limit.
	'memory-scene': ['text', 'words'],
	// Ours, after the paper's human preference study (its Table 4): the book, the two summaries in their shown order.
	'compare-judge': ['book', 'first', 'second'],
	// Ours, after NarrativeXL's false summaries (A.9.2): a true scene, and its length in words, to change one fact of.
	'memory-distortion': ['scene', 'words'],
} as const satisfies Record<string, SlotSpec>;

export type TemplateId = keyof typeof TEMPLATE_SLOTS;
export type Templates = Record<TemplateId, string>;

export type Value = string | number;
export type PositionalValues = readonly Value[];
export type NamedValues = Readonly<Record<string, Value>>;
/** A slot: its index among the `{}` slots, or its name. */
export type Slot = number | string;

/** A template that is not well formed; `message` is one line naming the problem and where. */
export class TemplateError extends Error {
	override name = 'TemplateError';
}

/**
 * A parsed template: `literals[i]` comes before `fields[i]`, and the last literal ends it.
 * `kind` is 'none' for a template without slots, which either form of values may fill.
 */
export interface ParsedTemplate {
	kind: 'positional' | 'named' | 'none';
	literals: readonly string[];
	fields: readonly Slot[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/u;

/** Index of the next '{' or '}' at or after `from`, or -1. */
function nextBrace(template: string, from: number): number {
	const open = template.indexOf('{', from);
	const close = template.indexOf('}', from);
	return open < 0 ? close : close < 0 ? open : Math.min(open, close);
}

function where(template: string, index: number): string {
	const before = template.slice(0, index);
	const line = before.split('\n').length;
	return `line ${line}, column ${index - before.lastIndexOf('\n')}`;
}

/** The first characters of a field, quoted on one line, for error messages. */
function shown(field: string): string {
	return JSON.stringify(field.length > 40 ? `${field.slice(0, 40)}...` : field);
}

const ESCAPE_HINT = 'write {{ or }} for a literal brace';

/** Reads one field's contents (between `{` and `}`); throws on anything outside our subset. */
function fieldName(template: string, content: string, at: number): string {
	const cut = content.search(/[!:]/u);
	const name = cut < 0 ? content : content.slice(0, cut);
	const place = where(template, at);
	if (name !== '' && /^\d+$/u.test(name))
		throw new TemplateError(
			`numbered field {${name}} at ${place} is not supported; use {} (slots are filled in order)`,
		);
	if (name !== '' && !IDENTIFIER.test(name))
		throw new TemplateError(
			`invalid field ${shown(`{${content}}`)} at ${place}: a field is {} or {name}; ${ESCAPE_HINT}`,
		);
	if (cut >= 0 && content[cut] === '!')
		throw new TemplateError(
			`conversion in field ${shown(`{${content}}`)} at ${place} is not supported; use {} or {name}`,
		);
	if (cut >= 0)
		throw new TemplateError(
			`format spec in field ${shown(`{${content}}`)} at ${place} is not supported; use {} or {name}`,
		);
	return name;
}

/** Parses a template; throws `TemplateError` when it is not well formed. */
export function parseTemplate(template: string): ParsedTemplate {
	const literals: string[] = [];
	const fields: Slot[] = [];
	let literal = '';
	let positional = 0;
	let named = 0;
	let i = 0;
	while (i < template.length) {
		const at = nextBrace(template, i);
		if (at < 0) {
			literal += template.slice(i);
			break;
		}
		literal += template.slice(i, at);
		const char = template[at]!;
		if (template[at + 1] === char) {
			literal += char;
			i = at + 2;
			continue;
		}
		if (char === '}') throw new TemplateError(`single '}' at ${where(template, at)}; ${ESCAPE_HINT}`);
		// Python forbids a brace inside a field name, so the first '{' or '}' after this one decides.
		const end = nextBrace(template, at + 1);
		if (end < 0 || template[end] === '{') {
			throw new TemplateError(
				`unclosed field at ${where(template, at)}: '{' without a matching '}'; ${ESCAPE_HINT}`,
			);
		}
		const name = fieldName(template, template.slice(at + 1, end), at);
		if (name === '') fields.push(positional++);
		else {
			fields.push(name);
			named++;
		}
		if (positional > 0 && named > 0) {
			throw new TemplateError(
				`template mixes {} and named fields (at ${where(template, at)}); use only {} or only {name}`,
			);
		}
		literals.push(literal);
		literal = '';
		i = end + 1;
	}
	literals.push(literal);
	return { kind: positional > 0 ? 'positional' : named > 0 ? 'named' : 'none', literals, fields };
}

// Callers fill the same few templates over and over (a fitting loop, one call per sentence), so
// each template is parsed once. The cache is bounded in case a caller makes templates on the fly.
const parsed = new Map<string, ParsedTemplate>();

function parse(template: string): ParsedTemplate {
	let result = parsed.get(template);
	if (!result) {
		result = parseTemplate(template);
		if (parsed.size >= 64) parsed.clear();
		parsed.set(template, result);
	}
	return result;
}

/** The slots a template has, in the form of `TEMPLATE_SLOTS`: a `{}` count, or distinct names in order of first use. */
export function templateSlots(template: string): SlotSpec {
	const { kind, fields } = parse(template);
	return kind === 'named' ? [...new Set(fields as string[])] : fields.length;
}

/** Why a template does not have the slots `spec` asks for, or null when it does. Throws `TemplateError` if malformed. */
export function slotMismatch(template: string, spec: SlotSpec): string | null {
	const has = templateSlots(template);
	const describe = (s: SlotSpec): string =>
		typeof s === 'number'
			? counted(s, '{} slot')
			: s.length === 0
				? 'no slots'
				: `named fields ${s.map((n) => `{${n}}`).join(', ')}`;
	const same =
		typeof spec === 'number'
			? has === spec || (spec === 0 && Array.isArray(has) && has.length === 0)
			: Array.isArray(has)
				? has.length === spec.length && spec.every((n) => has.includes(n))
				: has === 0 && spec.length === 0;
	return same ? null : `has ${describe(has)} but needs ${describe(spec)}`;
}

/** Per slot, where its value starts: by index for `{}` slots, by name for `{name}` slots. */
export type Offsets = readonly number[] | Readonly<Record<string, number>>;

export interface Filled<O extends Offsets> {
	text: string;
	/** Where each slot's value starts in `text` (its first occurrence, for a name used twice). */
	offsets: O;
}

export function fillWithOffsets(template: string, values: PositionalValues): Filled<readonly number[]>;
export function fillWithOffsets(
	template: string,
	values: NamedValues,
): Filled<Readonly<Record<string, number>>>;
export function fillWithOffsets(template: string, values: PositionalValues | NamedValues): Filled<Offsets>;
export function fillWithOffsets(template: string, values: PositionalValues | NamedValues): Filled<Offsets> {
	const { kind, literals, fields } = parse(template);
	const positional = Array.isArray(values);
	if (positional) {
		if (kind === 'named') throw new Error('template has named fields but positional values were given');
		if (fields.length !== values.length)
			throw new Error(
				`template has ${counted(fields.length, '{} slot')} but ${counted(values.length, 'value')} ${values.length === 1 ? 'was' : 'were'} given`,
			);
	} else {
		if (kind === 'positional') throw new Error('template has {} slots but named values were given');
		const given = Object.keys(values);
		const missing = [...new Set(fields as string[])].filter((n) => !given.includes(n));
		const extra = given.filter((n) => !fields.includes(n));
		if (missing.length > 0)
			throw new Error(
				`no value for template field${missing.length === 1 ? '' : 's'} ${missing.map((n) => `{${n}}`).join(', ')}`,
			);
		if (extra.length > 0)
			throw new Error(
				`template has no field${extra.length === 1 ? '' : 's'} ${extra.map((n) => `{${n}}`).join(', ')} for the value given`,
			);
	}
	const lookup = values as Readonly<Record<Slot, Value>>;
	// No prototype for names, so a slot called `constructor` is looked up like any other.
	const offsets = (positional ? [] : Object.create(null)) as Record<Slot, number>;
	let text = literals[0]!;
	fields.forEach((field, i) => {
		offsets[field] ??= text.length;
		text += String(lookup[field]) + literals[i + 1]!;
	});
	return { text, offsets };
}

/** Fills `{}` slots in order from an array, or `{name}` slots from an object. */
export function fill(template: string, values: PositionalValues | NamedValues): string {
	return fillWithOffsets(template, values).text;
}
