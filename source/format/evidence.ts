import { counted } from './count.ts';
import { fixed } from './number.ts';
import { chunkPlace, chunkRanges, chunkRuns, placeText } from './places.ts';
import { clean, wrap } from './text.ts';
import { wrapColumns } from '../text/wrap.ts';
import { safeJson } from '../text/sanitize.ts';

/** `evidence`'s text and JSON, a sentence at a time. */

/** A passage found for a sentence (evidence/rank.ts `Hit`, with its `similarity` when reranked by embeddings). */
type Passage = Record<'chunk' | 'start' | 'end' | 'score', number> & {
	verbatim: boolean;
	similarity?: number;
};

/** A sentence with its evidence, placed in the book (app/evidence.ts `PlacedSentence`). */
export interface PlacedSentence {
	evidence: Record<'chunks' | 'direct' | 'aligned', readonly number[]> & {
		index: number;
		origins: readonly string[];
		support: number;
		weak: boolean;
		denseSupport?: number;
		passages: readonly Passage[];
	};
	sentence: string;
	passages: readonly {
		place: { chapter: { index: number; title: string } | null; position: number };
		text: string;
	}[];
	origins: readonly { node: string; madeBy: string | null }[];
}

/** The line above the sentences: the book, the session, the node, how many sentences over how many chunks. */
export function evidenceHead(
	r: { title: string; node: string; final: boolean; sentences: number; chunks: number },
	id: string,
): string {
	const what = r.final ? `final summary (node ${r.node})` : `node ${r.node}`;
	return `${r.title} — session ${id}, ${what}: ${counted(r.sentences, 'sentence')} over ${counted(r.chunks, 'chunk')}`;
}

/** One sentence's evidence as `--json` gives it: chunks as runs, figures rounded. */
export function evidenceJson(placed: PlacedSentence) {
	const e = placed.evidence;
	// Chunks as runs: a model-written sentence can come from every chunk, and a list of them
	// for each sentence made the answer mostly chunk numbers.
	return {
		...e,
		chunks: chunkRuns(e.chunks),
		direct: chunkRuns(e.direct),
		aligned: chunkRuns(e.aligned),
		support: Math.round(e.support * 1000) / 1000,
		...(e.denseSupport === undefined ? {} : { denseSupport: Math.round(e.denseSupport * 1000) / 1000 }),
		passages: e.passages.map((p, k) => {
			const { place, text } = placed.passages[k]!;
			return {
				chunk: p.chunk,
				start: p.start,
				end: p.end,
				chapter: place.chapter,
				position: Math.round(place.position * 10_000) / 10_000,
				score: p.score,
				...('similarity' in p ? { similarity: Math.round(Number(p.similarity) * 10_000) / 10_000 } : {}),
				verbatim: p.verbatim,
				text,
			};
		}),
	};
}

/** One sentence, where it can come from, and its passages, each wrapped under a numbered head. */
export function sentenceLines(placed: PlacedSentence, columns: number, chunks: number): string[] {
	const e = placed.evidence;
	// Its number (from 1) and its text; its support has a line below.
	const lines = [...wrapped(clean(`${e.index + 1}. ${placed.sentence}`), columns)];
	// A tree narrows only what a model copied: say where a person's or an imported text is the origin.
	const named = placed.origins.map(({ node, madeBy }) => (madeBy ? `${node}, ${madeBy}` : node));
	const from = `written at node${e.origins.length === 1 ? '' : 's'} ${named.join(named.some((n) => n.includes(',')) ? '; ' : ', ')}`;
	lines.push(
		`   can come from chunk${e.chunks.length === 1 ? '' : 's'} ${chunkRanges(e.chunks) || 'none'} (${from})`,
	);
	const aligned =
		e.aligned.length === e.chunks.length
			? ''
			: `; aligned to chunk${e.aligned.length === 1 ? '' : 's'} ${chunkRanges(e.aligned)}`;
	const byEmbeddings = e.denseSupport === undefined ? '' : `; by embeddings ${fixed(e.denseSupport, 2)}`;
	lines.push(
		`   support ${fixed(e.support, 2)}${e.weak ? ', weakly supported' : ''}${byEmbeddings}${aligned}`,
	);
	if (e.passages.length === 0) lines.push('   no passage of those chunks shares a word with it');
	e.passages.forEach((p, k) => {
		const { place, text } = placed.passages[k]!;
		const similarity = 'similarity' in p ? `, similarity ${fixed(Number(p.similarity), 3)}` : '';
		const verbatim = p.verbatim ? ', holds the sentence word for word' : '';
		lines.push(
			`   [${k + 1}] ${placeText(place)} (${chunkPlace(p.chunk, chunks)}, characters ${p.start}-${p.end}), ` +
				`score ${fixed(p.score, 2)}${similarity}${verbatim}`,
		);
		for (const l of wrapped(clean(text), columns - 7)) lines.push(`       ${l}`);
	});
	return lines;
}

/** `wrap`, in one pass for text of one-column characters (most books): wrap-ansi took most of the time of a long node. */
function wrapped(text: string, columns: number): readonly string[] {
	return wrapColumns(text, columns) ?? wrap(text, columns);
}

/*
 * `evidence`'s output a sentence at a time: what `JSON.stringify(value, null, 2)` of the whole answer
 * gives, or the text, made in pieces so a node of megabytes streams out in memory that does not grow.
 */

/** The answer's opening: the reading's fields, then the evidence list opened (JSON), or the line above the sentences. */
export function evidenceOpening(
	json: boolean,
	r: Parameters<typeof evidenceHead>[0] & { chapters: unknown },
	id: string,
	top: number,
	embeddings: unknown,
): string {
	if (!json) return `${clean(evidenceHead(r, id))}\n`;
	const { node, final, sentences, chunks, chapters } = r;
	const head = { session: id, node, final, sentences, top, chunks, chapters };
	return `${safeJson({ ...head, ...(embeddings !== undefined ? { embeddings } : {}) }, 2).slice(0, -2)},\n  "evidence": [`;
}

/** One sentence's evidence: an item of the list (JSON; `first`: no comma before it), or its lines. */
export function evidencePiece(
	json: boolean,
	placed: PlacedSentence,
	first: boolean,
	columns: number,
	chunks: number,
): string {
	if (json) return `${first ? '' : ','}\n    ${safeJson(evidenceJson(placed), 2).replaceAll('\n', '\n    ')}`;
	return `\n${clean(sentenceLines(placed, columns, chunks).join('\n'))}\n`;
}

/** The answer's end, after `count` sentences. */
export function evidenceEnd(json: boolean, count: number): string {
	return json ? (count === 0 ? ']\n}\n' : '\n  ]\n}\n') : '';
}
