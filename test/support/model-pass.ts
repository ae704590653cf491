import type { TestContext } from 'node:test';
import type { ScoredSummary, Usage } from '../../source/domain.ts';
import { createProvider } from '../../source/llm/create.ts';
import type { Provider } from '../../source/llm/provider.ts';
import { BUILTIN_PRICES, callCost } from '../../source/llm/prices.ts';
import { Session } from '../../source/store/session.ts';
import type { CollectionSessionData } from '../../source/store/schema.ts';
import { startFakeApi } from './fake-api.ts';
import { tempDir } from './temp.ts';

/** What a test of a model pass (a judge, a reader) works with. */
export interface ModelPassBench {
	/** Every prompt the fake API was asked, in order. */
	prompts: string[];
	dir: string;
	/** A collection session titled as asked; the test closes it. */
	session: Session<CollectionSessionData>;
	/** gpt-4o-mini through the real openai SDK, against the fake API. */
	provider: Provider;
	costOf: (usage: Usage) => number;
}

/**
 * A fake API answering `respond` and recording its prompts, gpt-4o-mini on it through the openai
 * SDK, and a collection session in a temp folder holding `summaries`; the server closes after `t`.
 */
export async function modelPassBench(
	t: TestContext,
	name: string,
	title: string,
	respond: (prompt: string) => string,
	summaries: ScoredSummary[] = [],
): Promise<ModelPassBench> {
	const prompts: string[] = [];
	const server = await startFakeApi({
		respond: ({ prompt }) => {
			prompts.push(prompt);
			return respond(prompt);
		},
	});
	t.after(() => server.close());
	const dir = tempDir(name, t);
	const session = await Session.createCollection(dir, {
		title,
		sources: [],
		runs: [],
		summaries,
		annotations: [],
		judgments: [],
	});
	const provider = createProvider({
		provider: 'openai',
		model: 'gpt-4o-mini',
		baseUrl: server.openaiBaseUrl,
		env: { OPENAI_API_KEY: 'test-key' },
		streamTimeoutMs: 5000,
		streamRetryDelayMs: 10,
	});
	const costOf = (usage: Usage) => callCost(BUILTIN_PRICES, 'gpt-4o-mini', usage, 'openai').cost;
	return { prompts, dir, session, provider, costOf };
}
