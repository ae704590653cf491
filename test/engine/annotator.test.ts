import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Annotation, ScoredSummary } from '../../source/domain.ts';
import { Annotator, type AnnotationStore, type AnnotatorEvent } from '../../source/engine/annotator.ts';
import type { CallRequest, CallResult, Provider } from '../../source/llm/provider.ts';
import {} from '../../source/llm/abort.ts';
import { ProviderError } from '../../source/llm/provider.ts';
import { abortError } from '../../source/llm/abort.ts';
import { loadTemplates } from '../../source/prompts/load.ts';
import { MAX_RETRIES, RETRY_TEMPERATURE } from '../../source/score/annotate.ts';
import { planSummary, scoreSession } from '../../source/score/session-score.ts';
import type { CallRecord } from '../../source/store/schema.ts';
import { sessionSchema } from '../../source/store/schema.ts';
import { splitSentences } from '../../source/text/sentences.ts';
import { annotationQuestion, annotationReply, hashVerdict } from '../support/fake-api.ts';

const templates = await loadTemplates();

const TEXT = [
	'Elizabeth Bennet meets Mr. Darcy at a ball in Meryton.',
	'He refuses to dance with her.',
	'Her sister Jane falls ill at Netherfield.',
	'Mr. Collins proposes to Elizabeth.',
	'She refuses him.',
	'He leaves.',
	'Wickham tells Elizabeth a story about Darcy.',
	'He leaves.',
	'Darcy proposes and is refused.',
	'A letter explains his conduct.',
	'Lydia elopes with Wickham.',
	'Darcy arranges their marriage.',
	'Elizabeth accepts his second proposal.',
].join(' ');
const OTHER = 'A ship leaves port. A storm rises. The crew survives on an island. They are rescued.';

/** A session in memory, checked against the real schema at every change (as the store does). */
class MemoryAnnotations implements AnnotationStore {
	readonly log: CallRecord[] = [];
	constructor(
		readonly data: { summaries: ScoredSummary[]; annotations: Annotation[] },
		readonly id = 'memory',
	) {}
	async append(_list: 'annotations', ...items: Annotation[]): Promise<void> {
		this.data.annotations.push(...items);
		const now = '2024-05-01T10:00:00.000Z';
		const full = {
			schema: 2,
			id: 'memory',
			kind: 'collection',
			title: 't',
			sources: [],
			runs: [],
			createdAt: now,
			updatedAt: now,
			openedAt: now,
			judgments: [],
			...JSON.parse(JSON.stringify(this.data)),
		};
		const checked = sessionSchema.safeParse(full);
		assert.ok(checked.success, checked.success ? '' : JSON.stringify(checked.error.issues[0]));
	}
	async appendCall(record: CallRecord): Promise<void> {
		this.log.push(structuredClone(record));
	}
	async calls(): Promise<CallRecord[]> {
		return [...this.log];
	}
}

function summaries(): ScoredSummary[] {
	return [
		{ id: 's0', book: 'Pride', text: TEXT, node: null, version: null, source: 'test' },
		{ id: 's1', book: 'Ship', text: OTHER, node: null, version: null, source: 'test' },
	];
}

const all = (text: string) => splitSentences(text).map((_, i) => i);

/**
 * A provider answering annotation prompts as the fake server does, after `delayMs`, honouring the
 * abort signal; `override` may replace an answer (malformed ones). Records what it was asked.
 */
function fakeProvider(
	opts: { delayMs?: number; override?: (prompt: string, nth: number) => string | null } = {},
) {
	const seen = new Map<string, number>();
	const completed: CallRequest[] = [];
	const asked: CallRequest[] = [];
	let inFlight = 0;
	let maxInFlight = 0;
	const provider: Provider = {
		name: 'openai',
		model: 'fake-model',
		isLLM: true,
		async complete(request: CallRequest): Promise<CallResult> {
			asked.push(request);
			inFlight += 1;
			maxInFlight = Math.max(maxInFlight, inFlight);
			try {
				await new Promise<void>((resolve, reject) => {
					if (request.signal?.aborted) return reject(abortError('fake: call cancelled', request.signal));
					const onAbort = () => {
						clearTimeout(timer);
						reject(abortError('fake: call cancelled', request.signal));
					};
					const timer = setTimeout(() => {
						request.signal?.removeEventListener('abort', onAbort);
						resolve();
					}, opts.delayMs ?? 2);
					request.signal?.addEventListener('abort', onAbort, { once: true });
				});
				const nth = seen.get(request.prompt) ?? 0;
				seen.set(request.prompt, nth + 1);
				const text = opts.override?.(request.prompt, nth) ?? annotationReply(request.prompt)!;
				completed.push(request);
				const input = request.prompt.length;
				return {
					text,
					finishReason: 'stop',
					usage: { input, output: 10, cached: request.cacheablePrefix?.length ?? 0 },
				};
			} finally {
				inFlight -= 1;
			}
		},
	};
	return { provider, completed, asked, max: () => maxInFlight };
}

const costOf = (u: { input: number; output: number; cached: number }) =>
	(u.input - u.cached) * 1e-6 + u.cached * 0.1e-6 + u.output * 4e-6;

function annotator(
	store: MemoryAnnotations,
	provider: Provider,
	extra: Partial<ConstructorParameters<typeof Annotator>[0]> = {},
) {
	const a = new Annotator({
		store,
		provider,
		templates,
		work: store.data.summaries.map((s) => ({ summary: s.id, sentences: all(s.text) })),
		concurrency: 3,
		costOf,
		...extra,
	});
	const events: AnnotatorEvent[] = [];
	a.on((e) => events.push(e));
	return { a, events };
}

test('every sentence gets one model annotation, concurrently up to the limit, each call logged with its cacheable prefix', async () => {
	const store = new MemoryAnnotations({ summaries: summaries(), annotations: [] });
	const fake = fakeProvider({ delayMs: 5 });
	const { a, events } = annotator(store, fake.provider, { concurrency: 4 });
	assert.equal(await a.start(), 'done');
	const sentences = splitSentences(TEXT).length + splitSentences(OTHER).length;
	assert.equal(fake.completed.length, sentences, 'one call per sentence, the repeated "He leaves." twice');
	assert.equal(fake.max(), 4, 'the pool fills up to --concurrency and no further');
	for (const r of fake.completed) {
		assert.ok(r.cacheablePrefix && r.prompt.startsWith(r.cacheablePrefix));
		assert.equal(r.temperature, 0);
	}
	assert.equal(store.data.annotations.length, sentences);
	for (const s of summaries()) {
		const mine = store.data.annotations
			.filter((x) => x.summary === s.id)
			.sort((x, y) => x.sentence! - y.sentence!);
		const split = splitSentences(s.text);
		assert.deepEqual(
			mine.map((x) => x.sentence),
			split.map((_, i) => i),
		);
		mine.forEach((x, i) => {
			assert.equal(x.source, 'model');
			assert.equal(x.annotator, 'openai/fake-model');
			assert.equal(x.imported, null);
			assert.equal(s.text.slice(x.spans[0]!.start, x.spans[0]!.end), split[i]);
			assert.equal(x.confusing, hashVerdict(split[i]!) !== null);
			assert.ok(x.raw && x.raw.startsWith('Questions:'));
		});
	}
	assert.equal(store.log.length, sentences);
	assert.ok(
		store.log.every((c) => /^s[01]:\d+$/.test(c.node)),
		'the log names each unit',
	);
	assert.equal(events.filter((e) => e.type === 'annotation').length, sentences);
	const finished = events.at(-1)!;
	assert.ok(
		finished.type === 'annotate-finished' && finished.status === 'done' && finished.annotations === sentences,
	);
	assert.ok(
		finished.totals.cached > 0 && finished.totals.saved > 0,
		'cached tokens and what they saved are reported',
	);
	assert.equal(new Set(store.data.annotations.map((x) => x.id)).size, sentences);
});

test('an unreadable answer is asked again at most 3 times at a non-zero temperature, then recorded as a parse failure with its raw text', async () => {
	const split = splitSentences(TEXT);
	const store = new MemoryAnnotations({ summaries: summaries().slice(0, 1), annotations: [] });
	// Sentence 3 never gets a readable answer; sentence 5 does on the third call.
	const fake = fakeProvider({
		override: (prompt, nth) => {
			const asked = annotationQuestion(prompt)!.sentences[0];
			if (asked === split[3]) return `I am not sure (${nth}).`;
			if (asked === split[6] && nth < 2) return 'Questions: Who?\nTypes: plot hole';
			return null;
		},
	});
	const { a, events } = annotator(store, fake.provider);
	assert.equal(await a.start(), 'done');
	const callsFor = (s: string) =>
		fake.completed.filter((r) => annotationQuestion(r.prompt)!.sentences[0] === s);
	assert.equal(callsFor(split[3]!).length, 1 + MAX_RETRIES);
	assert.deepEqual(
		callsFor(split[3]!).map((r) => r.temperature),
		[0, ...Array(MAX_RETRIES).fill(RETRY_TEMPERATURE)],
	);
	assert.ok(RETRY_TEMPERATURE > 0);
	assert.equal(callsFor(split[6]!).length, 3);
	const failed = store.data.annotations.find((x) => x.sentence === 3)!;
	assert.ok(failed.failure && /Questions/.test(failed.failure));
	assert.equal(failed.raw, `I am not sure (${MAX_RETRIES}).`, 'the last raw answer is kept');
	const recovered = store.data.annotations.find((x) => x.sentence === 6)!;
	assert.equal(recovered.failure, null);
	assert.equal(store.data.annotations.length, split.length, 'one record per sentence, failures included');
	assert.equal(events.filter((e) => e.type === 'annotate-retry').length, MAX_RETRIES + 2);
	const finished = events.at(-1)!;
	assert.ok(finished.type === 'annotate-finished' && finished.failures === 1);
	// The failure is counted and left out of the score.
	const score = scoreSession(store.data.summaries, store.data.annotations, [
		planSummary(store.data.summaries[0]!, store.data.annotations, {
			requested: 'openai/fake-model',
			fallback: 'openai/fake-model',
		}),
	]);
	assert.equal(score.system.failures, 1);
	assert.equal(score.system.sentences, split.length - 1);
});

test("a parse failure is asked again when listed, as a new round: its saved calls are not taken back, a killed round's are", async () => {
	const split = splitSentences(TEXT);
	const store = new MemoryAnnotations({ summaries: summaries().slice(0, 1), annotations: [] });
	let readable = false;
	const fake = fakeProvider({
		override: (prompt) =>
			!readable && annotationQuestion(prompt)!.sentences[0] === split[3] ? 'I am not sure.' : null,
	});
	assert.equal(await annotator(store, fake.provider).a.start(), 'done');
	assert.ok(store.data.annotations.find((x) => x.sentence === 3)!.failure);
	const plan = () =>
		planSummary(store.data.summaries[0]!, store.data.annotations, {
			requested: 'openai/fake-model',
			fallback: 'openai/fake-model',
		});
	assert.deepEqual(plan().unreadable, [3]);
	assert.deepEqual(plan().missing, []);

	// Everything listed again: only the unreadable sentence is asked, in round 1.
	readable = true;
	const before = fake.completed.length;
	const saved = structuredClone(store.data.annotations);
	assert.equal(await annotator(store, fake.provider).a.start(), 'done');
	assert.equal(fake.completed.length, before + 1);
	assert.deepEqual(
		store.log.slice(-1).map((c) => [c.node, c.version, c.attempt]),
		[['s0:3', 1, 0]],
	);
	assert.deepEqual(plan().unreadable, []);
	const score = scoreSession(store.data.summaries, store.data.annotations, [plan()]);
	assert.equal(score.system.failures, 0);
	assert.equal(score.system.sentences, split.length);

	// A process killed after logging that answer but before saving it: the next start takes it back, no call.
	store.data.annotations.splice(0, Infinity, ...saved);
	assert.equal(await annotator(store, fake.provider).a.start(), 'done');
	assert.equal(fake.completed.length, before + 1, 'the logged answer of round 1 is taken back');
	assert.deepEqual(plan().unreadable, []);
});

test('batches: answers matched by position; a wrong count asks the batch again, a bad item only its sentence', async () => {
	const split = splitSentences(TEXT);
	const store = new MemoryAnnotations({ summaries: summaries().slice(0, 1), annotations: [] });
	let first = true;
	const fake = fakeProvider({
		override: (prompt, nth) => {
			const asked = annotationQuestion(prompt)!;
			assert.ok(asked.batch);
			const good = JSON.parse(annotationReply(prompt)!);
			if (asked.sentences[0] === split[0] && first) {
				first = false;
				return JSON.stringify(good.slice(1));
			}
			if (asked.sentences[0] === split[5] && nth === 0) {
				good[1].types = 'plot hole';
				good[1].questions = 'Who?';
				return JSON.stringify(good);
			}
			return null;
		},
	});
	const { a } = annotator(store, fake.provider, { batchSize: 5 });
	assert.equal(await a.start(), 'done');
	const batches = Math.ceil(split.length / 5);
	assert.equal(
		fake.completed.length,
		batches + 2,
		'one call per batch, plus one for the short list and one for the bad item',
	);
	assert.ok(fake.completed.every((r) => r.maxTokens > 300));
	assert.equal(store.data.annotations.length, split.length);
	assert.ok(store.data.annotations.every((x) => x.failure === null));
	for (const x of store.data.annotations)
		assert.equal(x.confusing, hashVerdict(split[x.sentence!]!) !== null, `sentence ${x.sentence}`);
});

test('cancelled mid-way then resumed: no call is made twice and every sentence ends with one annotation', async () => {
	const store = new MemoryAnnotations({ summaries: summaries(), annotations: [] });
	const first = fakeProvider({ delayMs: 5 });
	const { a } = annotator(store, first.provider);
	let seen = 0;
	a.on((e) => {
		if (e.type === 'annotation' && ++seen === 5) a.cancel();
	});
	assert.equal(await a.start(), 'cancelled');
	const afterCancel = store.data.annotations.length;
	const total = splitSentences(TEXT).length + splitSentences(OTHER).length;
	assert.ok(afterCancel >= 5 && afterCancel < total, `${afterCancel} of ${total}`);
	assert.ok(first.asked.length > first.completed.length, 'calls in flight were cancelled');

	const second = fakeProvider({ delayMs: 1 });
	const { a: again, events } = annotator(store, second.provider);
	assert.equal(await again.start(), 'done');
	// The repeated sentence has the same prompt twice, so calls are told apart by their unit.
	const units = store.log.map((c) => `${c.node}#${c.attempt}`);
	assert.equal(new Set(units).size, units.length, 'no unit was asked twice');
	assert.equal(units.length, total);
	assert.equal(
		first.completed.length + second.completed.length,
		total,
		'every answer the provider gave was used',
	);
	assert.equal(store.data.annotations.length, total);
	const started = events.find((e) => e.type === 'annotate-started')!;
	assert.ok(started.type === 'annotate-started' && started.units === total - afterCancel);
});

test('calls logged but never saved (a killed process) are taken back from the log, not made again', async () => {
	const reference = new MemoryAnnotations({ summaries: summaries(), annotations: [] });
	await annotator(reference, fakeProvider().provider).a.start();
	const total = reference.log.length;
	// The session was never saved after the log was written: annotations empty, log complete but for its last 4 lines.
	const crashed = new MemoryAnnotations({ summaries: summaries(), annotations: [] });
	crashed.log.push(...reference.log.slice(0, total - 4));
	const fake = fakeProvider();
	const { a, events } = annotator(crashed, fake.provider);
	assert.equal(await a.start(), 'done');
	assert.equal(fake.completed.length, 4, 'only the calls missing from the log are made');
	const started = events.find((e) => e.type === 'annotate-started');
	assert.ok(started?.type === 'annotate-started' && started.recovered === total - 4);
	const verdicts = (s: MemoryAnnotations) =>
		s.data.annotations.map((x) => `${x.summary}:${x.sentence}:${x.confusing}:${x.types.join('+')}`).sort();
	assert.deepEqual(verdicts(crashed), verdicts(reference));
	// Logged calls of another model are not this model's answers.
	const other = new MemoryAnnotations({ summaries: summaries(), annotations: [] });
	other.log.push(...reference.log.map((c) => ({ ...c, model: 'another-model' })));
	const fresh = fakeProvider();
	await annotator(other, fresh.provider).a.start();
	assert.equal(fresh.completed.length, total);
});

test('a provider error stops the run as failed; what was answered is kept and the rest is asked on the next start', async () => {
	const store = new MemoryAnnotations({ summaries: summaries().slice(0, 1), annotations: [] });
	const split = splitSentences(TEXT);
	const broken: Provider = {
		...fakeProvider().provider,
		async complete(request) {
			if (annotationQuestion(request.prompt)!.sentences[0] === split[4])
				throw new ProviderError('openai: 401 Unauthorized — check OPENAI_API_KEY', false, 401);
			return {
				text: annotationReply(request.prompt)!,
				finishReason: 'stop',
				usage: { input: 10, output: 5, cached: 0 },
			};
		},
	};
	const { a, events } = annotator(store, broken, { concurrency: 1 });
	assert.equal(await a.start(), 'failed');
	assert.match(a.error ?? '', /401/);
	assert.ok(events.some((e) => e.type === 'annotate-failed'));
	assert.equal(
		store.data.annotations.length,
		4,
		'sentences before the failure are kept; none after it were asked',
	);
	const fake = fakeProvider();
	assert.equal(await annotator(store, fake.provider).a.start(), 'done');
	assert.equal(fake.completed.length, split.length - 4);
});
