import {
	complete,
	CRITERIA,
	judgmentsOf,
	readCompareAnswer,
	shownOrder,
	storedChoice,
} from '../score/compare.ts';
import type { CompareRecord, Contender, Pair } from '../score/compare.ts';
import { fill } from '../summarize/templates.ts';
import type { CallLogStore } from './call-runner.ts';
import { ReadPass, type PassOptions, type ReadPassResult } from './read-pass.ts';

/** What the judge needs of a comparison: what is compared, the judgments so far, durable writes (the call log among them). */
export interface CompareJudgeStore extends CallLogStore {
	readonly definition: { readonly contenders: readonly Contender[]; readonly pairs: readonly Pair[] };
	readonly records: readonly CompareRecord[];
	record(record: CompareRecord): Promise<void>;
}

export interface CompareJudgeOptions extends PassOptions {
	store: CompareJudgeStore;
	/** prompts/compare-judge.txt, as the one prompt loader read it. */
	template: string;
	now?: () => Date;
}

export interface CompareJudgeResult extends ReadPassResult {
	/** Who the judge's verdicts are stored as: "provider/model". */
	judge: string;
	judged: number;
	/** Pairs whose answer could not be read after every retry (left unjudged; the next run asks again). */
	unreadable: number;
}

/**
 * A model judges every pair of a comparison as the people do, through the shared call runner
 * (logged in calls.jsonl, billed, concurrent, paced): one call per pair, the two summaries in the
 * order drawn for the pair (the people's blind order, so the model meets the same position as
 * they do), answering the four criteria at once. Each answer is stored as the model's verdict on
 * the pair; pairs it judged before are skipped, and answers a killed judging logged are taken from
 * the log rather than bought again.
 */
export async function judgeComparison(opts: CompareJudgeOptions): Promise<CompareJudgeResult> {
	const { store, provider } = opts;
	const judge = `${provider.name}/${provider.model}`;
	const pass = await ReadPass.start({ ...opts, log: store });
	const byKey = new Map(store.definition.contenders.map((c) => [c.key, c]));
	const mine = judgmentsOf(store.records).get(judge);
	const todo = store.definition.pairs.filter((p) => !complete(mine?.get(p.id)));
	const result = { judged: 0, unreadable: 0 };
	const now = opts.now ?? (() => new Date());
	await pass.each(todo, async (pair) => {
		const [first, second] = shownOrder(pair).map((side) => byKey.get(pair[side])!);
		const prompt = fill(opts.template, { book: first!.book, first: first!.text, second: second!.text });
		const answer = await pass.ask({
			owner: `cmp-${pair.id}`,
			name: `pair ${pair.id}`,
			template: 'compare-judge',
			prompt,
			task: { kind: 'annotate', texts: [first!.text, second!.text], words: 0 },
			// Four short lines, with room for a model that says a little before them.
			maxTokens: 200,
			read: readCompareAnswer,
		});
		if (answer === undefined) return;
		if (answer === null) {
			result.unreadable += 1;
			return;
		}
		await store.record({
			kind: 'verdict',
			at: now().toISOString(),
			annotator: judge,
			origin: 'model',
			pair: pair.id,
			choices: Object.fromEntries(CRITERIA.map((c) => [c, storedChoice(pair, answer[c])])),
		});
		result.judged += 1;
	});
	return { ...pass.result(), judge, ...result };
}
