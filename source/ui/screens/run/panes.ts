import { passageWhere } from '../../../evidence/book-place.ts';
import { costText } from '../../../format/cost.ts';
import { formatInt, counted } from '../../../format/count.ts';
import type { Node, NodeRef, Run, Version } from '../../../domain.ts';
import { activeVersion, findNode, isChunkRef } from '../../../summarize/graph.ts';
import { chunkRead, kindName, nodePlace } from '../../../summarize/places.ts';
import type { SentenceEvidence } from '../../../evidence/evidence.ts';
import { chunkPlace, chunkRanges } from '../../../format/places.ts';
import { madeWithoutCall } from '../../../summarize/version.ts';
import { expectedWords } from '../../../summarize/budget.ts';
import { cachedDiff, diffCounts, type DiffPart } from '../../state/diff.ts';
import type { NodeView, ViewState } from '../../state/view.ts';
import { clean, textWidth, wrap } from '../../../format/text.ts';
import type { Line } from '../../components/Lines.tsx';
import type { Tone } from '../../theme.ts';
import { fixed } from '../../../format/number.ts';

/**
 * The panes' contents as styled lines, built from the run and the view model. Pure: the screens
 * window these lines to the rows they have and render them; nothing here knows about Ink.
 */

/** Text of an input reference, or null when it has none yet. */
function refTextOf(run: Run, ref: NodeRef, book: string): string | null {
	if (isChunkRef(ref)) {
		const chunk = run.chunks[Number(ref.slice(1))];
		return chunk ? book.slice(chunk.start, chunk.end) : null;
	}
	const node = findNode(run, ref);
	return node ? (activeVersion(node)?.text ?? null) : null;
}

/** The summary an incremental step rewrote: the running summary an update or clean-up read. */
export function previousSummaryRef(node: Pick<NodeView, 'kind' | 'inputs'>): NodeRef | null {
	if (node.kind === 'update') return node.inputs[1] ?? null;
	if (node.kind === 'compress' || node.kind === 'clean') return node.inputs[0] ?? null;
	return null;
}

function wrapped(text: string, width: number, tone?: Tone, gutter = ''): Line[] {
	const pad = ' '.repeat(gutter.length);
	return wrap(clean(text), Math.max(1, width - gutter.length)).map((t, i) => ({
		text: `${i === 0 ? gutter : pad}${t}`,
		tone,
	}));
}

/**
 * The selected node's text: what is streaming while it runs, else its active version. With `diff`,
 * an incremental step's sentences are marked against the summary it rewrote (+ added, − dropped).
 */
export function textLines(
	run: Run,
	view: ViewState,
	node: NodeView,
	width: number,
	opts: { diff: boolean },
): { lines: Line[]; live: boolean; counts: { added: number; dropped: number } | null } {
	const live = view.live[node.id];
	if (node.status === 'running') {
		const text = live?.text ?? '';
		if (text === '')
			return {
				lines: [{ text: `waiting for the model (attempt ${node.attempt + 1})…`, tone: 'muted' }],
				live: true,
				counts: null,
			};
		const lines = wrapped(text, width);
		// A cut front is marked, so a tail is not read as the whole text.
		if (live && live.chars > live.text.length) lines.unshift({ text: '…', tone: 'muted' });
		return { lines, live: true, counts: null };
	}
	const full = findNode(run, node.id);
	const version = full ? activeVersion(full) : null;
	if (!version) {
		const why =
			node.status === 'failed'
				? `failed: ${node.error ?? 'unknown error'}`
				: node.status === 'stale'
					? 'stale: waiting to be re-run'
					: 'not run yet';
		return {
			lines: [{ text: clean(why), tone: node.status === 'failed' ? 'error' : 'muted' }],
			live: false,
			counts: null,
		};
	}
	const prevRef = opts.diff ? previousSummaryRef(node) : null;
	const previous = prevRef ? refTextOf(run, prevRef, '') : null;
	if (prevRef === null || previous === null)
		return { lines: wrapped(version.text, width), live: false, counts: null };
	const parts = cachedDiff(clean(previous), clean(version.text));
	return { lines: diffLines(parts, width), live: false, counts: diffCounts(parts) };
}

export function diffLines(parts: readonly DiffPart[], width: number): Line[] {
	const lines: Line[] = [];
	for (const p of parts) {
		if (p.kind === 'kept') lines.push(...wrapped(p.text, width, undefined, '  '));
		else if (p.kind === 'added') lines.push(...wrapped(p.text, width, 'added', '+ '));
		else lines.push(...wrapped(p.text, width, 'dropped', '− '));
	}
	return lines;
}

/** What the node reads: its chunk or child summaries, and the context summary of a merge. */
export function inputLines(run: Run, node: NodeView, book: string, width: number): Line[] {
	const lines: Line[] = [];
	const section = (title: string, text: string | null) => {
		lines.push({ text: clean(title), tone: 'accent', bold: true });
		if (text === null) lines.push({ text: 'no text yet', tone: 'muted' });
		else lines.push(...wrapped(text, width));
		lines.push({ text: '' });
	};
	for (const ref of node.inputs) {
		const text = refTextOf(run, ref, book);
		if (isChunkRef(ref)) {
			const chunk = run.chunks[Number(ref.slice(1))];
			section(
				`── ${chunkPlace(Number(ref.slice(1)), run.chunks.length)} (${counted(chunk?.tokens ?? 0, 'token')})`,
				text,
			);
		} else {
			const input = findNode(run, ref);
			const what = input
				? `${kindName(input.kind)}, ${nodePlace(input, run.config.method, run.chunks.length)}`
				: 'unknown';
			section(
				`── node ${ref}: ${what}${node.kind === 'update' && ref === node.inputs[1] ? ' (the running summary)' : ''}`,
				text,
			);
		}
	}
	if (node.context)
		section(
			`── context, node ${node.context}: the previous merge of this level (cut to its last sentences that fit)`,
			refTextOf(run, node.context, book),
		);
	if (lines.length === 0) lines.push({ text: 'no inputs', tone: 'muted' });
	return lines;
}

/** The text of the chunk the node reads, or a line saying it reads none. */
export function chunkLines(run: Run, node: NodeView, book: string, width: number): Line[] {
	const ref = node.inputs.find(isChunkRef);
	if (!ref)
		return [
			{ text: `node ${node.id} reads no chunk: its inputs are summaries (tab shows them).`, tone: 'muted' },
		];
	const chunk = run.chunks[Number(ref.slice(1))];
	return [
		{
			text: `── ${chunkPlace(Number(ref.slice(1)), run.chunks.length)} (${counted(chunk?.tokens ?? 0, 'token')})`,
			tone: 'accent',
			bold: true,
		},
		...wrapped(refTextOf(run, ref, book) ?? '', width),
	];
}

/** Every call of the version in progress and of the active version: outcome, usage, time. */
export function attemptLines(run: Run, node: NodeView, width: number, priced = true): Line[] {
	const full = findNode(run, node.id);
	if (!full) return [];
	const lines: Line[] = [];
	const version = activeVersion(full);
	const list = (title: string, attempts: Node['pending']) => {
		lines.push({ text: title, tone: 'accent', bold: true });
		attempts.forEach((a, i) => {
			const words = a.text.trim() === '' ? 0 : a.text.trim().split(/\s+/u).length;
			const outcome = a.rejected ? `rejected: ${a.rejected}` : 'accepted';
			lines.push(
				...wrapped(
					`#${i + 1} ${a.finishReason} · ${counted(words, 'word')} (asked ${a.params.words}) · temperature ` +
						`${a.params.temperature} · in ${counted(a.usage.input, 'token')} / out ${formatInt(a.usage.output)} ` +
						`· ${costText(a.cost, priced)} · ${fixed(a.timings.ms / 1000, 1)}s · ${outcome}`,
					width,
					a.rejected ? 'warn' : undefined,
				),
			);
		});
	};
	if (full.pending.length > 0 || node.status === 'running')
		list(
			`calls of the version in progress${node.status === 'running' ? ` (attempt ${node.attempt + 1} streaming)` : ''}`,
			full.pending,
		);
	const by = madeWithoutCall(version);
	if (version) {
		if (by)
			lines.push({
				text: `active version ${full.active! + 1}: ${by}, no calls`,
				tone: 'accent',
				bold: true,
			});
		else
			list(
				`calls of the active version ${full.active! + 1}${version.overBudget ? ' (no call met the budget: the best was kept)' : ''}`,
				version.attempts,
			);
	}
	if (lines.length === 0) lines.push({ text: 'no calls yet', tone: 'muted' });
	return lines;
}

/** Two lines about the node: what it is and its state; its budget against what it wrote. */
export function nodeSummary(
	run: Run,
	view: ViewState,
	node: NodeView,
	priced = true,
	width = Infinity,
): [Line, Line] {
	const full = findNode(run, node.id);
	const version: Version | null = full ? activeVersion(full) : null;
	const trim =
		view.method === 'inc' && node.kind === 'compress' && full
			? ` (trim ${Number(full.meta.trim ?? 0) + 1})`
			: '';
	const chunk = chunkRead(node, view.chunks);
	const where = `${nodePlace(node, view.method, view.chunks)}${trim}${chunk ? ` · ${chunk}` : ''}`;
	const state = node.status === 'running' ? `running, attempt ${node.attempt + 1}` : node.status;
	const by = madeWithoutCall(version);
	const short =
		version?.origin === 'edit' ? ' (edited)' : version?.origin === 'imported' ? ' (imported)' : '';
	const versions =
		node.versions > 0 ? ` · version ${(node.active ?? 0) + 1} of ${node.versions}${short}` : '';
	const first: Line = {
		text: clean(
			`node ${node.id} · ${kindName(node.kind)} · ${where} · ${state}${versions}${node.overBudget ? ' · over budget' : ''}`,
		),
		bold: true,
		tone: node.status === 'failed' ? 'error' : node.status === 'stale' ? 'warn' : undefined,
	};
	const budget = full?.budget;
	const usage = version?.usage;
	// Words and tokens in full where the width allows, in short (w, tok) where it does not; then
	// the cost goes, then the tokens in and out: the line is never cut mid-number.
	const forms = ([true, false] as const).flatMap((long) => {
		const w = (n: number) => (long ? counted(n, 'word') : `${formatInt(n)} w`);
		const tok = (n: number) => (long ? counted(n, 'token') : `${formatInt(n)} tok`);
		const actual =
			node.words !== null
				? `${w(node.words)} / ${tok(node.tokens ?? 0)}`
				: node.status === 'running'
					? `${counted(view.live[node.id]?.chars ?? 0, 'char')} so far`
					: '—';
		const aim = budget ? budgetText(run, node, budget, w, tok) : 'budget —';
		const head = `${aim} · actual ${actual} · ${counted(node.calls, 'call')}`;
		if (by) return [`${head} · ${by}`];
		if (!usage) return [head];
		const inOut = ` · in ${formatInt(usage.input)} out ${formatInt(usage.output)}`;
		return [`${head}${inOut} · ${costText(version?.cost ?? 0, priced)}`, `${head}${inOut}`, head];
	});
	const second: Line = { text: forms.find((f) => textWidth(f) <= width) ?? forms.at(-1)!, tone: 'muted' };
	return [first, second];
}

/**
 * What a node was asked for. A hierarchical node's budget is a pair: its word limit and its output
 * limit in tokens. An incremental step's words are the running summary's length aimed at after it,
 * which grows each step to the maximum at the last (the authors' schedule), under an output limit
 * that stays the maximum summary: "aim 87 words (675 at the end) · limit 900 tokens".
 */
function budgetText(
	run: Run,
	node: NodeView,
	budget: { words: number; summaryTokens: number },
	w: (n: number) => string,
	tok: (n: number) => string,
): string {
	if (run.config.method !== 'inc') return `budget ${w(budget.words)} / ${tok(budget.summaryTokens)}`;
	if (node.kind === 'compress') return `compress to ${w(budget.words)} · limit ${tok(budget.summaryTokens)}`;
	if (node.kind === 'clean') return `limit ${tok(budget.summaryTokens)}`;
	const last = expectedWords(run.config.maxSummary, run.chunks.length - 1, run.chunks.length);
	return `aim ${w(budget.words)} (${formatInt(last)} at the end) · limit ${tok(budget.summaryTokens)}`;
}

/**
 * The evidence pane: the node's sentences, the chosen one marked, the chunks it most likely comes
 * from (aligned down the tree) and how well its passages support it, and below it the passages of
 * the book (best first, with where they are). `sentence` is clamped to the text.
 */
export function evidenceLines(
	evidence: readonly SentenceEvidence[] | null,
	sentence: number,
	book: string,
	width: number,
	chunks: number,
): { lines: Line[]; chosen: number } {
	if (evidence === null)
		return {
			lines: [{ text: 'No text yet: evidence is shown for a node that has one.', tone: 'muted' }],
			chosen: 0,
		};
	if (evidence.length === 0)
		return { lines: [{ text: 'The text has no sentences.', tone: 'muted' }], chosen: 0 };
	const chosen = Math.min(Math.max(0, sentence), evidence.length - 1);
	const picked = evidence[chosen]!;
	const lines: Line[] = [
		{
			text:
				`sentence ${chosen + 1} of ${evidence.length} ([ and ] choose) · from chunk${picked.aligned.length === 1 ? '' : 's'} ` +
				`${chunkRanges(picked.aligned) || 'none'}${picked.edited ? ' · edited by hand' : ''}`,
			tone: 'muted',
		},
		{
			text: `support ${fixed(picked.support, 2)}${picked.weak ? ' · weakly supported' : ''}`,
			tone: picked.weak ? 'warn' : 'muted',
		},
	];
	lines.push(...wrapped(picked.text, width, 'accent', '› '));
	if (picked.passages.length === 0)
		lines.push({ text: 'No passage of those chunks shares a word with it.', tone: 'muted' });
	for (const p of picked.passages) {
		lines.push({
			text: passageWhere(book, chunks, p, ' · '),
			tone: 'muted',
			bold: true,
		});
		lines.push(...wrapped(book.slice(p.start, p.end).replace(/\s+/gu, ' '), width, undefined, '  '));
	}
	return { lines, chosen };
}
