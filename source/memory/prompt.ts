import type { MemoryAnswer, MemoryQuestion } from '../domain.ts';
import { DASH } from '../format/missing.ts';
import { percent } from '../format/percent.ts';
import type { Read } from '../score/claims.ts';
import { collapseWhitespace } from '../text/runs.ts';

/**
 * A memory question as its prompt (prompts/memory-question.txt) shows it, and the reader's answer
 * read back. Options are numbered from 1 as a person reads them; a choice is stored 0-based, with
 * `options.length` for "None of the above" (as `MemoryQuestion.answer`).
 */

/** The words of the last option, after the scene options. */
export const NONE_OF_THE_ABOVE = 'None of the above.';

/**
 * The question prompt's values: `shown` is what the reader knows of the book (a summary, or the
 * scene's own text for the ceiling), and the scene options numbered one a line, then "None of the above".
 */
export function questionPromptValues(
	question: Pick<MemoryQuestion, 'options'>,
	shown: string,
): { summary: string; options: string } {
	return { summary: shown, options: numberedOptions(question) };
}

/**
 * The floor prompt's values (prompts/memory-floor.txt): nothing of the book is shown, only how much
 * of it the summary asked about had read (a running summary's question is about the part read
 * then, and a reader guessing needs that as much as one shown the summary), and the same options.
 */
export function floorPromptValues(question: Pick<MemoryQuestion, 'options' | 'read'>): {
	read: string;
	options: string;
} {
	const { fraction } = question.read;
	return {
		read:
			fraction >= 1
				? 'the whole book'
				: `the first ${percent(Math.floor(100 * fraction) / 100, DASH, 0)} of the book`,
		options: numberedOptions(question),
	};
}

/** The scene options numbered one a line from 1, then "None of the above". */
function numberedOptions(question: Pick<MemoryQuestion, 'options'>): string {
	const scenes = question.options.map((o, i) => `${i + 1}) ${collapseWhitespace(o.text).trim()}`);
	return [...scenes, `${scenes.length + 1}) ${NONE_OF_THE_ABOVE}`].join('\n');
}

const NONE = /none of the above/iu;
const NUMBER = /\d+/gu;

/**
 * Reads a reader's choice among `options` scene options: "Answer: 3", "3", "3)" or "None of the
 * above" (which is `options`). The answer is the one `Answer:` line when there is one, else the
 * whole text when it is one line. Refused, and so asked again, when it names no option, names one
 * out of range, names two, or names a scene while also saying "None of the above".
 */
export function readChoice(text: string, options: number): Read<number> {
	const lines = text
		.trim()
		.split(/\r?\n/u)
		.map((l) => l.trim())
		.filter((l) => l !== '');
	const answers = lines.filter((l) => /^\W*answer\W*:/iu.test(l));
	if (answers.length > 1) return { ok: false, reason: `${answers.length} "Answer:" lines` };
	if (answers.length === 0 && lines.length !== 1)
		return { ok: false, reason: lines.length === 0 ? 'no answer' : 'no "Answer: N" line' };
	const answer = (answers[0] ?? lines[0]!).replace(/^\W*answer\W*:/iu, '');
	const numbers = answer.match(NUMBER) ?? [];
	const none = NONE.test(answer);
	if (numbers.length > 1) return { ok: false, reason: `two options named (${numbers.join(', ')})` };
	if (numbers.length === 0)
		return none ? { ok: true, value: options } : { ok: false, reason: 'no option number' };
	const chosen = Number(numbers[0]) - 1;
	if (chosen < 0 || chosen > options)
		return { ok: false, reason: `option ${numbers[0]} is not among 1 to ${options + 1}` };
	if (none && chosen !== options)
		return { ok: false, reason: `option ${numbers[0]} named with "None of the above"` };
	return { ok: true, value: chosen };
}

/** The call log's owner of a question's calls: one per question and what the reader was shown. */
export function questionOwner(question: Pick<MemoryQuestion, 'id'>, shown: MemoryAnswer['shown']): string {
	return `memory.${question.id}.${shown}`;
}

/** The call log's owner of a scene's calls: the stretch of its book it summarizes. */
export function sceneOwner(book: string, piece: { start: number; end: number }): string {
	return `scene.${book}.${piece.start}-${piece.end}`;
}

/** The call log's owner of a distortion's calls: the scene of its book it changes. */
export function distortionOwner(scene: { book: string; id: string }): string {
	return `distortion.${scene.book}.${scene.id}`;
}

/** Whether a logged call was made by memory probes (a scene written or distorted, or a question answered). */
export function isProbeCall(owner: string): boolean {
	return owner.startsWith('memory.') || owner.startsWith('scene.') || owner.startsWith('distortion.');
}
