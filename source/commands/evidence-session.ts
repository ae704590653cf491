import type { NodeRef } from '../domain.ts';
import { badInput } from '../errors.ts';
import { PassageIndex } from '../evidence/rank.ts';
import { evidenceLookup, type ShownEvidence } from '../evidence/units.ts';
import { activeVersion, findNode } from '../summarize/graph.ts';
import { Session, type BookSessionData, type SessionData } from '../store/session.ts';
import { formatInt } from '../format/count.ts';
import { formatSeconds } from '../format/duration.ts';
import { statusLine, type Stream } from './output.ts';
import { commandLine } from '../program.ts';

/** What `evidence` and `coverage` read: a run's session, its book, the node asked for, and the book's passage index. */
export interface EvidenceSession {
	data: BookSessionData;
	book: string;
	node: NodeRef;
	/** The node is the run's final summary (its root). */
	final: boolean;
	/** Built when first read: a long book's takes seconds, and a command can show its first line before. */
	readonly index: PassageIndex;
}

/** `--node` as given: `n12` or `12`. */
export function nodeArg(value: string): `n${number}` {
	const m = /^n?(\d+)$/u.exec(value.trim());
	if (!m) throw badInput(`--node ${value}: name a node of the run as n<number> (for example n0)`);
	return `n${Number(m[1])}`;
}

/** Reads session `id` and checks that it has a run with text at `node` (default: the final summary). */
export async function evidenceSession(
	dir: string,
	id: string,
	node: NodeRef | undefined,
	command: string,
): Promise<EvidenceSession> {
	const { data, text } = await Session.snapshot(dir, id);
	if (data.kind !== 'book')
		throw badInput(
			`session "${id}" holds imported summaries, not a run over a book: ${command} needs a run (${commandLine('run BOOK')})`,
		);
	const run = data.run;
	const target = node ?? run.root;
	if (!target)
		throw badInput(
			`session "${id}" has no final summary yet: finish it with ${commandLine(`resume ${id}`)}${command === 'evidence' ? ', or name a node with --node' : ''}`,
		);
	const found = findNode(run, target);
	if (!found) {
		const last = run.nodes.at(-1)?.id;
		throw badInput(
			`no node ${target} in session "${id}": ${last ? `its nodes are n0 to ${last}` : 'its run has no nodes yet'}`,
		);
	}
	if (!activeVersion(found))
		throw badInput(
			`node ${target} of session "${id}" has no text yet (${found.status}): choose a done node, or finish the run with ${commandLine(`resume ${id}`)}`,
		);
	let index: PassageIndex | null = null;
	return {
		data,
		book: text,
		node: target,
		final: target === run.root,
		get index() {
			return (index ??= new PassageIndex(text, run.chunks));
		},
	};
}

/** How often the progress of a long `evidence` or `coverage` is redrawn, and how long it waits before the first. */
export const PROGRESS_EVERY_MS = 1000;

export interface SentenceProgress {
	/** `done` sentences are done: redrawn when a second has passed since the last draw. */
	tick(done: number): void;
	/** All are done: a progress line that was drawn shows the total and is ended. */
	end(): void;
}

/**
 * Progress over a node's sentences on `stream` (stderr): nothing for work that ends within a second,
 * then "evidence of n51: 12,000 of 190,000 sentences (6%), 14s" once a second.
 */
export function sentenceProgress(
	stream: Stream,
	what: string,
	total: number,
	clock: () => number = () => performance.now(),
): SentenceProgress {
	const line = statusLine(stream);
	const started = clock();
	let next = started + PROGRESS_EVERY_MS;
	let drawn = false;
	const draw = (done: number, now: number) =>
		line.draw(
			`${what}: ${formatInt(done)} of ${formatInt(total)} sentence${total === 1 ? '' : 's'} (${Math.floor((100 * done) / Math.max(1, total))}%), ${formatSeconds((now - started) / 1000)}`,
		);
	return {
		tick(done) {
			const now = clock();
			if (now < next) return;
			next = now + PROGRESS_EVERY_MS;
			drawn = true;
			draw(done, now);
		},
		end() {
			if (!drawn) return;
			draw(total, clock());
			line.end();
		},
	};
}

/**
 * Writes to `stream` that wait while its buffer is full, so output made faster than a pipe is read
 * is not all held in memory. A stream that closes or fails ends the wait (the CLI exits on EPIPE).
 */
export function writer(stream: Stream): (text: string) => Promise<void> {
	return async (text) => {
		if (stream.write(text)) return;
		await new Promise<void>((resolve) => {
			const done = () => {
				stream.off('drain', done);
				stream.off('close', done);
				stream.off('error', done);
				resolve();
			};
			stream.on('drain', done);
			stream.on('close', done);
			stream.on('error', done);
		});
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
