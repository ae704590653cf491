import type { ProviderName } from '../domain.ts';
import type { CellConfig } from './grid.ts';
import type { StudySpec } from './spec.ts';

/** The model that annotates a cell's summary for BooookScore. */
export interface Scorer {
	provider: ProviderName;
	model: string;
	baseUrl: string | null;
}

/**
 * The study's `scorer` where it names something; else the cell's own model when it is an LLM (with
 * its server), else `fallback` — the provider whose API key is set. Pure: the key check is the caller's.
 */
export function scorerOf(
	cell: Pick<CellConfig, 'provider' | 'model' | 'baseUrl'>,
	scorer: StudySpec['scorer'],
	fallback: ProviderName,
	defaultModel: (provider: ProviderName) => string,
): Scorer {
	const provider = scorer?.provider ?? (cell.provider !== 'extractive' ? cell.provider : fallback);
	const own = provider === cell.provider;
	const model = scorer?.model ?? (own ? cell.model : defaultModel(provider));
	// A cell's server serves the cell's model; another model goes to the provider's default address.
	const baseUrl = scorer?.baseUrl ?? (own && model === cell.model ? cell.baseUrl : null);
	return { provider, model, baseUrl };
}
