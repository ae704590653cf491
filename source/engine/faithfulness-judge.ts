import type { ClaimCheck, FaithfulnessVerdict, ScoredSummary } from '../domain.ts';
import { sentencesName } from '../format/places.ts';
import {
	checkClaim,
	claimPromptValues,
	claimsNote,
	claimsPromptValues,
	readClaimAnswer,
	readClaims,
	sentenceLabel,
	type JudgeEvidence,
	type Read,
} from '../score/claims.ts';
import { faithfulnessUnits, type FaithfulnessUnit } from '../score/faithfulness.ts';
import { fill, type Templates } from '../summarize/templates.ts';
import { countTokens } from '../text/tokens.ts';
import type { CallLogStore } from './call-runner.ts';
import { ReadPass, type PassOptions, type ReadPassResult } from './read-pass.ts';

/** What the judge needs of a session: its summaries and verdicts, and durable writes (the call log among them). */
export interface FaithfulnessJudgeStore extends CallLogStore {
	readonly data: {
		readonly summaries: readonly ScoredSummary[];
		readonly faithfulness?: readonly FaithfulnessVerdict[];
	};
	/** Adds verdicts; resolves once they are durable. */
	append(list: 'faithfulness', ...items: FaithfulnessVerdict[]): Promise<void>;
}

export interface FaithfulnessJudgeOptions extends PassOptions {
	store: FaithfulnessJudgeStore;
	/** The claims and claim-judge templates, as loaded by the one prompt loader. */
	templates: Pick<Templates, 'faithfulness-claims' | 'faithfulness-judge'>;
	summaries: readonly ScoredSummary['id'][];
	/** The passages of the book offered for one claim of a sentence: retrieval plugs in here. */
	evidenceFor: (
		unit: FaithfulnessUnit,
		claim: string,
	) => readonly JudgeEvidence[] | Promise<readonly JudgeEvidence[]>;
	maxTokens?: number;
}

export interface FaithfulnessJudgeResult extends ReadPassResult {
	judged: number;
	/** Claims asked of the judge in the sentences judged. */
	claims: number;
	/** Claims whose answer could not be read after every retry (recorded as `unreadable`). */
	unreadable: number;
	/** Sentences whose claims answer could not be read (judged whole). */
	unsplit: number;
}

/**
 * The most tokens an answer about `sentence` may take: its claims restate it with every name
 * spelled out, a few times its length, and a quote is at most a sentence of the book; never
 * below a few lines' worth.
 */
function answerTokens(sentence: string): number {
	return Math.max(400, 4 * countTokens(sentence));
}

/**
 * A model judges each summary sentence FABLES' way, through the shared call runner (logged in
 * calls.jsonl, billed, concurrent, paced): one call splits the sentence into atomic claims (given
 * the summary, to resolve names), then one call per claim judges it against the passages retrieved
 * for it, quoting them (given the sentence only: the claims stand alone). Each sentence's
 * verdict (origin model, validator "provider/model") is saved with its claims and their checks once
 * all are in. Sentences this model judged before are skipped; calls a killed judging logged are
 * taken from the log rather than made again. An unreadable answer is asked again at a higher
 * temperature up to `maxRetries` times; then a claims answer leaves the sentence as one claim, and a
 * claim's answer leaves the claim `unreadable`.
 */
export async function judgeFaithfulness(opts: FaithfulnessJudgeOptions): Promise<FaithfulnessJudgeResult> {
	const { store, provider } = opts;
	const judge = `${provider.name}/${provider.model}`;
	const pass = await ReadPass.start({ ...opts, log: store });
	const wanted = new Set(opts.summaries);
	const summaries = store.data.summaries.filter((s) => wanted.has(s.id));
	const done = new Set(
		(store.data.faithfulness ?? [])
			.filter((v) => v.validator === judge)
			.map((v) => `${v.summary}:${v.sentence}`),
	);
	const units = faithfulnessUnits(summaries).filter((u) => !done.has(`${u.summary}:${u.sentence}`));
	const result = { judged: 0, claims: 0, unreadable: 0, unsplit: 0 };

	/** Asks `prompt` of the judge about `unit` (see `ReadPass.ask`). */
	const ask = <T>(
		unit: FaithfulnessUnit,
		owner: string,
		template: string,
		prompt: string,
		read: (text: string) => Read<T>,
	): Promise<T | null | undefined> =>
		pass.ask({
			owner,
			name: sentencesName(unit.summary, [unit.sentence]),
			template,
			prompt,
			task: {
				kind: 'annotate',
				texts: [summaries.find((s) => s.id === unit.summary)!.text, unit.text],
				words: 0,
			},
			maxTokens: opts.maxTokens ?? answerTokens(unit.text),
			read,
		});

	const judgeClaim = async (
		unit: FaithfulnessUnit,
		claim: string,
		k: number,
	): Promise<ClaimCheck | undefined> => {
		const evidence = await opts.evidenceFor(unit, claim);
		const template = opts.templates['faithfulness-judge'];
		const prompt = fill(template, claimPromptValues(unit.text, claim, evidence));
		const answer = await ask(
			unit,
			`f${unit.summary}.${unit.sentence}.c${k}`,
			'faithfulness-judge',
			prompt,
			readClaimAnswer,
		);
		return answer === undefined ? undefined : checkClaim(claim, answer, evidence);
	};

	const run = async (unit: FaithfulnessUnit): Promise<void> => {
		const summary = summaries.find((s) => s.id === unit.summary)!.text;
		const splitPrompt = fill(opts.templates['faithfulness-claims'], claimsPromptValues(summary, unit.text));
		const split = await ask(
			unit,
			`f${unit.summary}.${unit.sentence}.split`,
			'faithfulness-claims',
			splitPrompt,
			(text) => readClaims(text, unit.text),
		);
		if (split === undefined) return;
		const claims = split ?? [unit.text];
		const checks = await Promise.all(claims.map((claim, k) => judgeClaim(unit, claim, k)));
		if (pass.stopped || checks.some((c) => c === undefined)) return;
		const checked = checks as ClaimCheck[];
		const how = split === null ? 'unreadable' : 'read';
		await store.append('faithfulness', {
			summary: unit.summary,
			sentence: unit.sentence,
			label: sentenceLabel(checked),
			note: claimsNote(checked, how),
			validator: judge,
			origin: 'model',
			at: (opts.now ?? (() => new Date()))().toISOString(),
			claims: checked,
			split: how,
		});
		result.judged += 1;
		result.claims += checked.length;
		result.unreadable += checked.filter((c) => c.verdict === 'unreadable').length;
		if (split === null) result.unsplit += 1;
	};

	await pass.each(units, run);
	const { status, error, totals } = pass.result();
	return { status, ...result, error, totals };
}
