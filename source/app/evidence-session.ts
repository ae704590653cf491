import { sessionsDirArg } from '../config.ts';
import { noFinalSummary } from '../store/scored-summaries.ts';
import { join } from 'node:path';
import type { DenseVectors } from '../evidence/rerank.ts';
import { eachSentenceSpan, sentenceCount } from '../text/sentences.ts';
import type { DenseEvidence, Embeddings } from './dense-evidence.ts';
import type { NodeRef, Run } from '../domain.ts';
import { chapterCitations, type ChapterCitations } from '../evidence/book-place.ts';
import { finalCoverage, type Coverage } from '../evidence/coverage.ts';
import { badInput } from '../errors.ts';
import { PassageIndex } from '../evidence/rank.ts';
import { evidenceLookup, type ShownEvidence } from '../evidence/units.ts';
import { activeVersion, findNode, getNode } from '../summarize/graph.ts';
import { Session, type BookSessionData, type SessionData } from '../store/session.ts';
import { flag, next, said, type Said } from '../program.ts';
import { chaptersOf, type Chapter } from '../text/chapters.ts';

/** A final summary's coverage and the chapters it cites, as `coverage` and `report` show them. */
export interface PlacedCoverage {
	coverage: Coverage;
	chapters: ChapterCitations[];
	/** Sentences whose best passage holds less than a third of what they say (evidence/support.ts). */
	weak: number;
}

/** What `evidence` and `coverage` read: a run's session, its book, the node asked for, and the book's passage index. */
export interface EvidenceSession {
	data: BookSessionData;
	book: string;
	node: NodeRef;
	/** The node is the run's final summary (its root). */
	final: boolean;
	/** Built when first read: a long book's takes seconds, and a command can show its first line before. */
	readonly index: PassageIndex;
	/** The book's chapters by its headings (none when it has none), read when first asked for. */
	readonly chapters: Chapter[];
}

/**
 * Session `id` as it is on disk (read without its lock, so a run may go on) and its book, refused
 * with a one-line error when it holds imported summaries rather than a run; `command` names who asks.
 */
export async function bookRun(
	dir: string,
	id: string,
	command: Said,
): Promise<{ data: BookSessionData; book: string }> {
	const { data, text } = await Session.snapshot(dir, id);
	if (data.kind !== 'book')
		throw badInput(
			said`session "${id}" holds imported summaries, not a run over a book: ${command} needs a run (${next('run', 'BOOK')})`,
		);
	return { data, book: text };
}

/** Reads session `id` and checks that it has a run with text at `node` (default: the final summary). */
export async function evidenceSession(
	dir: string,
	id: string,
	node: NodeRef | undefined,
	command: string,
): Promise<EvidenceSession> {
	const { data, book: text } = await bookRun(dir, id, command);
	const run = data.run;
	const target = node ?? run.root;
	if (!target)
		throw noFinalSummary(
			id,
			dir,
			command === 'evidence' ? said`, or name a node with ${flag('--node')}` : '',
		);
	const found = findNode(run, target);
	if (!found) {
		const last = run.nodes.at(-1)?.id;
		throw badInput(
			`no node ${target} in session "${id}": ${last ? `its nodes are n0 to ${last}` : 'its run has no nodes yet'}`,
		);
	}
	if (!activeVersion(found))
		throw badInput([
			`node ${target} of session "${id}" has no text yet (${found.status}): choose a done node, or finish the run with `,
			next('resume', `${id}${sessionsDirArg(dir)}`),
		]);
	let index: PassageIndex | null = null;
	let chapters: Chapter[] | null = null;
	return {
		data,
		book: text,
		node: target,
		final: target === run.root,
		get index() {
			return (index ??= new PassageIndex(text, run.chunks));
		},
		get chapters() {
			return (chapters ??= chaptersOf(text));
		},
	};
}

/**
 * The evidence passages of a summary sentence of an open session, for the faithfulness walk and
 * judge: a run's summaries are traced through its tree; imported summaries have no book, so none.
 */
export async function sessionEvidence(
	session: Session<SessionData>,
): Promise<(unit: { summary: string; sentence: number }) => ShownEvidence[]> {
	const { data } = session;
	if (data.kind !== 'book') return () => [];
	const book = await session.bookText();
	return evidenceLookup(data.run, book, new PassageIndex(book, data.run.chunks), data.summaries);
}

/**
 * The coverage of a run's final summary (null before it has one) and the chapters its sentences
 * cite: each sentence cites the chapter its best passage starts in, as it cites that passage's chunk.
 */
export function placedCoverage(
	run: Run,
	book: string,
	index: PassageIndex,
	chapters: readonly Chapter[],
	onSentence?: (done: number) => void,
	dense?: DenseVectors,
): PlacedCoverage | null {
	const starts: number[] = [];
	let weak = 0;
	const coverage = finalCoverage(
		run,
		book,
		index,
		undefined,
		(done, evidence) => {
			const best = evidence.passages[0];
			if (best) starts.push(best.start);
			if (evidence.weak) weak++;
			onSentence?.(done);
		},
		dense,
	);
	return coverage && { coverage, chapters: chapterCitations(chapters, starts), weak };
}

/**
 * `--embeddings` for `evidence` and `coverage`: the vectors of the session's book's passages (read
 * back from its folder when kept there) and of the node's sentences (only `wanted`, by index, when
 * given), for rerank.ts.
 */
export async function sentenceVectors(
	dir: string,
	id: string,
	s: EvidenceSession,
	embeddings: Embeddings,
	wanted?: readonly number[],
): Promise<DenseEvidence> {
	const dense = await embeddings.load(join(dir, id), s.book, s.index);
	const text = activeVersion(findNode(s.data.run, s.node)!)!.text;
	const sentences = [...eachSentenceSpan(text)]
		.filter((_, k) => !wanted || wanted.includes(k))
		.map((span) => text.slice(span.start, span.end));
	await dense.add(sentences);
	return dense;
}

/** The sentences of the session's node: how far a progress over them goes. */
export function nodeSentences(s: EvidenceSession): number {
	return sentenceCount(activeVersion(getNode(s.data.run, s.node))!.text);
}
