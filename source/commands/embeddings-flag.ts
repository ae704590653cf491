import type { Command, OptionValues } from '@commander-js/extra-typings';
import { DEFAULT_EMBEDDING_MODEL, embeddingsFor, type DenseEvidence } from '../app/dense-evidence.ts';
import { sentenceVectors, type EvidenceSession } from '../app/evidence-session.ts';
import { output, type Stream } from './output.ts';
import { badInput } from '../errors.ts';
import { spendLines } from '../format/embeddings.ts';

/** `--embeddings [MODEL]`, as `evidence`, `coverage` and `faithfulness` take it. */
export function withEmbeddingsOption<Args extends unknown[], Opts extends OptionValues>(
	cmd: Command<Args, Opts>,
) {
	return cmd.option(
		'--embeddings [model]',
		`rerank the BM25 passages by an embedding model's similarity (default ${DEFAULT_EMBEDDING_MODEL}; ` +
			`needs OPENAI_API_KEY, or --base-url for an OpenAI-compatible server); the book is embedded once and kept in the session`,
	);
}

/** What a command given `--embeddings` passes on. */
export interface EmbeddingsFlags {
	/** `--embeddings`: the model whose embeddings rerank the passages. */
	embeddings?: string;
	/** Its server (`--base-url`). */
	baseUrl?: string;
	env?: NodeJS.ProcessEnv;
}

/** The step of `--embeddings` in a command: the vectors of a session's book and of its node's sentences. */
export interface EmbeddingsStep {
	/** Embeds (or reads back) the book's passages and embeds the node's sentences (only `wanted`); says what it cost on `stderr`. */
	vectors(
		dir: string,
		id: string,
		s: EvidenceSession,
		stderr: Stream,
		wanted?: readonly number[],
	): Promise<DenseEvidence>;
}

/** The embeddings `--embeddings` asks for, checked (key, address) before the session is read; null without it. */
export function embedderOf(opts: EmbeddingsFlags): EmbeddingsStep | null {
	if (opts.embeddings === undefined) {
		if (opts.baseUrl !== undefined)
			throw badInput(
				'--base-url names the server of --embeddings: add --embeddings, or leave --base-url out',
			);
		return null;
	}
	const embeddings = embeddingsFor({ model: opts.embeddings, baseUrl: opts.baseUrl, env: opts.env });
	return {
		async vectors(dir, id, s, stderr, wanted) {
			const dense = await sentenceVectors(dir, id, s, embeddings, wanted);
			for (const line of spendLines(dense.spend())) output(stderr).line(line);
			return dense;
		},
	};
}
