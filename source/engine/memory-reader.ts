import type { MemoryAnswer, MemoryQuestion } from '../domain.ts';
import { floorPromptValues, questionOwner, questionPromptValues, readChoice } from '../memory/prompt.ts';
import { fill, type Templates } from '../summarize/templates.ts';
import type { CallLogStore } from './call-runner.ts';
import { ReadPass, type PassOptions, type ReadPassResult } from './read-pass.ts';

/** What the reader needs of a session: its questions and answers, and durable writes (the call log among them). */
export interface MemoryReaderStore extends CallLogStore {
	readonly data: {
		readonly memoryQuestions?: readonly MemoryQuestion[];
		readonly memoryAnswers?: readonly MemoryAnswer[];
	};
	/** Adds answers; resolves once they are durable. */
	append(list: 'memoryAnswers', ...items: MemoryAnswer[]): Promise<void>;
}

export interface MemoryReaderOptions extends PassOptions {
	store: MemoryReaderStore;
	templates: Pick<Templates, 'memory-question' | 'memory-floor'>;
	questions: readonly MemoryQuestion[];
	/** What the reader is shown for a question instead of the book: its summary, or the true scene's chunk; unused for `none`. */
	shownFor: (question: MemoryQuestion) => string;
	shown: MemoryAnswer['shown'];
	/** Questions answered so far (those answered before included) out of all given; called at the start and after each answer. */
	onProgress?: (answered: number, total: number) => void;
}

export interface MemoryReaderResult extends ReadPassResult {
	/** Answers stored by this pass (unreadable ones among them). */
	answered: number;
	/** Answers stored with no choice: none could be read after every retry. */
	unreadable: number;
}

/**
 * The most tokens an answer may take: one line "Answer: N", with room for a reader that repeats the
 * option's first words after its number. An answer cut there is refused and asked again.
 */
const ANSWER_TOKENS = 60;

/**
 * A model answers memory questions (NarrativeXL's read-along questions), shown only `shownFor`'s
 * text (or, for the floor, nothing), never the book: one call per question through the shared call runner (logged in
 * calls.jsonl, billed, concurrent, paced by the provider's rate limiter). Each answer is stored as
 * it comes, with the reader "provider/model" and whether it was right; one that cannot be read
 * after every retry (at a higher temperature) is stored with no choice, and is wrong. Questions
 * this reader answered before, shown the same kind of text, are skipped, and calls a killed pass
 * logged are taken from the log rather than asked again.
 */
export async function answerMemory(opts: MemoryReaderOptions): Promise<MemoryReaderResult> {
	const { store, provider, shown } = opts;
	const reader = `${provider.name}/${provider.model}`;
	const pass = await ReadPass.start({ ...opts, log: store });
	const done = new Set(
		(store.data.memoryAnswers ?? [])
			.filter((a) => a.reader === reader && a.shown === shown)
			.map((a) => a.question),
	);
	const questions = opts.questions.filter((q) => !done.has(q.id));
	const result = { answered: 0, unreadable: 0 };
	const total = opts.questions.length;
	opts.onProgress?.(total - questions.length, total);

	const answer = async (question: MemoryQuestion): Promise<void> => {
		// The floor shows nothing of the book: its own prompt, which says so and asks for a best guess.
		const text = shown === 'none' ? '' : opts.shownFor(question);
		const template = shown === 'none' ? 'memory-floor' : 'memory-question';
		const values = shown === 'none' ? floorPromptValues(question) : questionPromptValues(question, text);
		const options = question.options.length;
		const choice = await pass.ask({
			owner: questionOwner(question, shown),
			name: `question ${question.id}`,
			template,
			prompt: fill(opts.templates[template], values),
			task: { kind: 'annotate', texts: [text, ...question.options.map((o) => o.text)], words: 0 },
			maxTokens: ANSWER_TOKENS,
			read: (reply) => readChoice(reply, options),
		});
		if (choice === undefined || pass.stopped) return;
		await store.append('memoryAnswers', {
			question: question.id,
			reader,
			shown,
			choice,
			correct: choice === question.answer,
			at: (opts.now ?? (() => new Date()))().toISOString(),
		});
		result.answered += 1;
		if (choice === null) result.unreadable += 1;
		opts.onProgress?.(total - questions.length + result.answered, total);
	};

	await pass.each(questions, answer);
	const { status, error, totals } = pass.result();
	return { status, ...result, error, totals };
}
