import { counted } from '../format/count.ts';
import { isLabel, NO_CONFUSION, type Label } from './labels.ts';

/**
 * A model's verdict on one sentence. A failure is never a verdict: the scorer leaves the sentence
 * out of the score and counts it, so a malformed answer can neither raise nor lower a score.
 */
export type Answer =
	{ ok: true; confusing: boolean; questions: string; types: Label[] } | { ok: false; reason: string };

export type BatchAnswer = { ok: true; answers: Answer[] } | { ok: false; reason: string };

const CLEAR: Answer = { ok: true, confusing: false, questions: '', types: [] };

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

const short = (text: string): string => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);

/** "no confusion", also when quoted or closed with a full stop as a sentence would be. */
function saysNoConfusion(value: string): boolean {
	return (
		value
			.trim()
			.replace(/^["'“]|["'”]$/gu, '')
			.replace(/\.$/u, '')
			.trim()
			.toLowerCase() === NO_CONFUSION
	);
}

/**
 * The types of a confusing sentence: labels separated by commas, any case, nothing else. A model
 * that invents a type ("plot hole") or writes prose ("entity and event omission") is refused
 * rather than guessed at, as the authors' own check refuses it.
 */
function parseTypes(
	value: string | readonly unknown[],
): { ok: true; types: Label[] } | { ok: false; reason: string } {
	const items = typeof value === 'string' ? value.trim().replace(/\.$/u, '').split(',') : [...value];
	const types: Label[] = [];
	for (const item of items) {
		if (typeof item !== 'string') return fail(`a type is ${JSON.stringify(item)}, not text`);
		const type = item.trim().toLowerCase();
		if (type === '') return fail('Types has an empty entry');
		if (!isLabel(type)) return fail(`unknown type ${short(item.trim())}`);
		if (!types.includes(type)) types.push(type);
	}
	if (types.length === 0) return fail('Types is empty');
	return { ok: true, types };
}

/** One verdict from its two fields, already separated; shared by both answer formats. */
function verdict(questions: string, types: string | readonly unknown[]): Answer {
	const clearQ = saysNoConfusion(questions);
	const clearT = typeof types === 'string' && saysNoConfusion(types);
	if (clearQ && clearT) return CLEAR;
	if (clearQ) return fail('Questions say no confusion but Types name a confusion');
	if (clearT) return fail('Types say no confusion but Questions ask something');
	if (questions.trim() === '') return fail('Questions is empty');
	const parsed = parseTypes(types);
	if (!parsed.ok) return parsed;
	return { ok: true, confusing: true, questions: questions.trim(), types: parsed.types };
}

const QUESTIONS = /^\s*Questions:/u;
const TYPES = /^\s*Types:/u;

/**
 * Reads a v1 answer (prompts/get_annotations.txt): a `Questions:` line, then a `Types:` line. As in
 * the authors' parser, lines before the first field and after the second are ignored (a model may
 * add a preamble); unlike theirs, questions that run over several lines are kept whole. Exactly one
 * of each field, in that order, or the answer is refused. Never throws.
 */
export function parseAnswer(text: string): Answer {
	if (typeof text !== 'string') return fail('the answer is not text');
	const lines = text.split(/\r?\n/u);
	const q = lines.flatMap((line, i) => (QUESTIONS.test(line) ? [i] : []));
	const t = lines.flatMap((line, i) => (TYPES.test(line) ? [i] : []));
	if (q.length === 0) return fail('no "Questions:" line');
	if (t.length === 0) return fail('no "Types:" line');
	if (q.length > 1 || t.length > 1)
		return fail(`${q.length} "Questions:" and ${t.length} "Types:" lines; one answer has one of each`);
	const qi = q[0]!;
	const ti = t[0]!;
	if (ti < qi) return fail('"Types:" comes before "Questions:"');
	const questions = [lines[qi]!.replace(QUESTIONS, ''), ...lines.slice(qi + 1, ti)].join('\n');
	return verdict(questions, lines[ti]!.replace(TYPES, ''));
}

/** A v2 field: null, a missing field or an empty value all mean "nothing"; undefined means malformed. */
function textField(value: unknown): string | null | undefined {
	if (value === null || value === undefined) return null;
	if (typeof value !== 'string') return undefined;
	return value.trim() === '' ? null : value;
}

function typesField(value: unknown): string | readonly unknown[] | null | undefined {
	if (Array.isArray(value)) return value.length === 0 ? null : value;
	return textField(value);
}

function item(value: unknown, n: number): Answer {
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		return fail(`answer ${n} is not an object`);
	const record = value as Record<string, unknown>;
	const questions = textField(record.questions);
	const types = typesField(record.types);
	if (questions === undefined) return fail(`answer ${n}: questions is neither text nor null`);
	if (types === undefined) return fail(`answer ${n}: types is neither text, a list nor null`);
	if (questions === null && types === null) return CLEAR;
	if (questions === null) return fail(`answer ${n}: types without questions`);
	if (types === null)
		return saysNoConfusion(questions) ? CLEAR : fail(`answer ${n}: questions without types`);
	const result = verdict(questions, types);
	return result.ok ? result : fail(`answer ${n}: ${result.reason}`);
}

/**
 * Reads a v2 answer (prompts/get_annotations_v2.txt): a JSON list with one object per numbered
 * sentence, `questions` and `types` both null for a clear sentence. Answers are matched to the
 * `count` sentences of the batch by position, as the authors do; a list of another length, or one
 * whose `sentence_num` disagrees with its position, cannot be matched and fails as a whole. A bad
 * item fails alone. Never throws.
 */
export function parseBatchAnswer(text: string, count: number): BatchAnswer {
	if (typeof text !== 'string') return fail('the answer is not text');
	const start = text.indexOf('[');
	const end = text.lastIndexOf(']');
	if (start === -1 || end < start) return fail('no JSON list in the answer');
	let list: unknown;
	try {
		list = JSON.parse(text.slice(start, end + 1));
	} catch (error) {
		return fail(`the list is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
	}
	if (!Array.isArray(list)) return fail('the answer is not a JSON list');
	if (list.length !== count)
		return fail(`expected ${counted(count, 'answer')}, one per sentence, got ${list.length}`);
	for (const [i, entry] of list.entries()) {
		const num =
			typeof entry === 'object' && entry !== null
				? (entry as Record<string, unknown>).sentence_num
				: undefined;
		if (num !== undefined && num !== null && Number(num) !== i + 1) {
			return fail(
				`answer ${i + 1} is numbered ${JSON.stringify(num)}, so answers cannot be matched to sentences`,
			);
		}
	}
	return { ok: true, answers: list.map((entry, i) => item(entry, i + 1)) };
}
