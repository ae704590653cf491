/**
 * A book summarized with LangChain.js the way a user would pick instead of booook: bench/peers.ts
 * races this whole process (start-up included) against booook's CLI on the same fake API.
 *
 *   node bench/peers/summarize.mjs BOOK --base-url URL [--method map-reduce|refine]
 *       [--concurrency 4] [--chunk-size 2048] [--token-max 7000] [--splitter token|recursive]
 *       [--model gpt-4o-mini]
 *
 * Needs `npm --prefix bench/peers ci` once, and OPENAI_API_KEY set (anything: the fake ignores it).
 * Prints the summary on stdout and one JSON line on stderr: { method, chunks, rounds }, where rounds
 * are the calls of each step that waits for the one before (bench/peers.ts computes a floor from them).
 *
 * - map-reduce: the map-reduce with collapse of LangChain's summarization tutorial: every chunk
 *   summarized ("Write a concise summary"), then, while the summaries hold more than --token-max
 *   tokens, they are split into consecutive groups under it (`splitListOfDocs`) and each group is
 *   collapsed into one (`collapseDocs`), then one reduce call. The tutorial collapses its groups one
 *   after another; here they run concurrently, the faster choice. (`loadSummarizationChain`'s
 *   "map_reduce" in JS has no grouped collapse: it re-summarizes every summary alone until all fit,
 *   which never ends when summaries do not shrink, so a user would not pick it for a book.)
 * - refine: `loadSummarizationChain(llm, { type: "refine" })` as it comes, one call per chunk.
 *
 * ChatOpenAI keeps its defaults (no streaming, no max_tokens, retries) except the base URL and
 * maxConcurrency. Chunks of --chunk-size cl100k tokens without overlap, as booook's: `token` is
 * LangChain's TokenTextSplitter, `recursive` its RecursiveCharacterTextSplitter counting tokens (what
 * `fromTiktokenEncoder` builds). LangChain would download its tokenizer's ranks on every start
 * (tiktoken.pages.dev), which this machine cannot reach; both get js-tiktoken's bundled
 * cl100k_base instead, the same ranks without the download. Any fetch off the loopback fails loudly.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { collapseDocs, splitListOfDocs } from '@langchain/classic/chains/combine_documents/reduce';
import { loadSummarizationChain } from '@langchain/classic/chains';
import { Document } from '@langchain/core/documents';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { PromptTemplate } from '@langchain/core/prompts';
import { ChatOpenAI } from '@langchain/openai';
import { RecursiveCharacterTextSplitter, TokenTextSplitter } from '@langchain/textsplitters';
import { getEncoding } from 'js-tiktoken';

const { values, positionals } = parseArgs({
	allowPositionals: true,
	options: {
		method: { type: 'string', default: 'map-reduce' },
		'base-url': { type: 'string' },
		model: { type: 'string', default: 'gpt-4o-mini' },
		concurrency: { type: 'string', default: '4' },
		'chunk-size': { type: 'string', default: '2048' },
		'token-max': { type: 'string', default: '7000' },
		splitter: { type: 'string', default: 'token' },
	},
});
const [bookPath] = positionals;
if (
	!bookPath ||
	!values['base-url'] ||
	!['map-reduce', 'refine'].includes(values.method) ||
	!['token', 'recursive'].includes(values.splitter)
) {
	process.stderr.write(
		'usage: node bench/peers/summarize.mjs BOOK --base-url URL [--method map-reduce|refine] [--splitter token|recursive]\n',
	);
	process.exit(2);
}

// The benchmark talks to a local fake API only: a call anywhere else is a bug in this script.
const loopback = new Set(['127.0.0.1', 'localhost', '[::1]']);
const localFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
	const url = new URL(input instanceof Request ? input.url : String(input));
	if (!loopback.has(url.hostname)) {
		process.stderr.write(`peer: refusing to reach ${url.host}\n`);
		process.exit(3);
	}
	return localFetch(input, init);
};

const concurrency = Number(values.concurrency);
const chunkSize = Number(values['chunk-size']);
const tokenMax = Number(values['token-max']);
const encoding = getEncoding('cl100k_base');
const llm = new ChatOpenAI({
	model: values.model,
	configuration: { baseURL: values['base-url'] },
	maxConcurrency: concurrency,
});

const book = readFileSync(bookPath, 'utf8');
const splitter =
	values.splitter === 'token'
		? Object.assign(new TokenTextSplitter({ encodingName: 'cl100k_base', chunkSize, chunkOverlap: 0 }), {
				tokenizer: encoding,
			})
		: new RecursiveCharacterTextSplitter({
				chunkSize,
				chunkOverlap: 0,
				lengthFunction: (text) => encoding.encode(text).length,
			});
const docs = await splitter.createDocuments([book]);

const rounds = [];
const summary = values.method === 'refine' ? await refine(docs) : await mapReduce(docs);
process.stdout.write(`${summary}\n`);
process.stderr.write(`${JSON.stringify({ method: values.method, chunks: docs.length, rounds })}\n`);

async function refine(chunks) {
	const chain = loadSummarizationChain(llm, { type: 'refine' });
	const { output_text } = await chain.invoke({ input_documents: chunks });
	rounds.push(...chunks.map(() => 1));
	return output_text;
}

async function mapReduce(chunks) {
	const map = PromptTemplate.fromTemplate('Write a concise summary of the following:\n\n{context}')
		.pipe(llm)
		.pipe(new StringOutputParser());
	const reduce = PromptTemplate.fromTemplate(
		'The following is a set of summaries:\n\n{docs}\n\nTake these and distill it into a final, consolidated summary of the main themes.',
	)
		.pipe(llm)
		.pipe(new StringOutputParser());
	const joined = (group) => group.map((d) => d.pageContent).join('\n\n');
	const tokens = (group) => group.reduce((n, d) => n + encoding.encode(d.pageContent).length, 0);

	const mapped = await map.batch(
		chunks.map((d) => ({ context: d.pageContent })),
		{ maxConcurrency: concurrency },
	);
	rounds.push(chunks.length);
	let summaries = mapped.map((text) => new Document({ pageContent: text }));
	while (tokens(summaries) > tokenMax) {
		const groups = splitListOfDocs(summaries, tokens, tokenMax);
		if (groups.length >= summaries.length) throw new Error('the summaries do not shrink: raise --token-max');
		rounds.push(groups.length);
		summaries = await Promise.all(
			groups.map((group) =>
				collapseDocs(group, async (docsOf) => await reduce.invoke({ docs: joined(docsOf) })),
			),
		);
	}
	rounds.push(1);
	return await reduce.invoke({ docs: joined(summaries) });
}
