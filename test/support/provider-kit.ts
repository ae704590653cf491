import type { CallRequest } from '../../source/llm/provider.ts';
import { startFakeApi, type FakeApi, type FakeApiOptions } from './fake-api.ts';

/** Runs `body` against a fake API that answers `reply` (unless `opts.respond` says otherwise), then closes it. */
export async function withFake(
	reply: string,
	opts: FakeApiOptions,
	body: (fake: FakeApi) => Promise<void>,
): Promise<void> {
	const fake = await startFakeApi({ respond: () => reply, ...opts });
	try {
		await body(fake);
	} finally {
		await fake.close();
	}
}

export function request(prompt: string, extra: Partial<CallRequest> = {}): CallRequest {
	return {
		prompt,
		maxTokens: 200,
		temperature: 0.5,
		task: { kind: 'summarize', texts: [prompt], words: 50 },
		...extra,
	};
}

/** Deltas and retries in arrival order, to check what a live view would have shown. */
export function recorder() {
	const events: Array<{ delta: string } | { retry: string }> = [];
	return {
		events,
		onDelta: (text: string) => events.push({ delta: text }),
		onRetry: (reason: string) => events.push({ retry: reason }),
		/** The text shown after the last reset. */
		shown(): string {
			const last = events.map((e) => 'retry' in e).lastIndexOf(true);
			return events
				.slice(last + 1)
				.map((e) => ('delta' in e ? e.delta : ''))
				.join('');
		},
		retries: () => events.filter((e) => 'retry' in e).length,
	};
}
