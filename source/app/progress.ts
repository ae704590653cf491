import type { NodeRef } from '../domain.ts';
import type { AnnotatorEvent } from '../engine/annotator.ts';
import type { EngineEvent } from '../engine/events.ts';
import type { StudyEvent } from '../engine/study-runner.ts';
import { counted } from '../format/count.ts';
import { cellCost, usd } from '../format/cost.ts';
import { scoreText } from '../format/number.ts';
import { sentencesName } from '../format/places.ts';
import {
	annotateLine,
	annotateStartedLine,
	limitsSpent,
	rateWaitText,
	runLine,
	runStartedLine,
	type RateLimitFigures,
} from '../format/progress.ts';

/**
 * The headless progress of a run or an annotation, kept from its events: each event gives what the
 * progress line does next, in order, and the edge writes it (commands/progress.ts). No I/O here, so
 * the same events always give the same lines.
 */
export type ProgressStep =
	/** A message on its own line, above the progress line. */
	| { say: string }
	/** The progress line, redrawn. */
	| { draw: string }
	/** The progress line is final. */
	| { end: true };

/** What a tracker reads besides the events: the clock and the width the line is fitted to. */
interface ProgressClock {
	now: () => number;
	/** The terminal's width now, or null when the line goes to a pipe or a file. */
	columns: () => number | null;
}

/** The progress of a headless run: calls done/planned, tokens, cost, ETA, from the engine's events. */
export function runProgress(
	opts: ProgressClock & { priced: boolean; name?: (node: NodeRef) => string },
): (event: EngineEvent) => ProgressStep[] {
	// As the run screen and the run's error name a node (summarize/places.ts).
	const name = opts.name ?? ((node: NodeRef) => `node ${node}`);
	const { now } = opts;
	const started = now();
	let doneAtStart: number | null = null;
	// The engine's estimate, as the run-started and node-planned events last reported it.
	let plannedCalls = 0;
	let done = 0;
	let tokensIn = 0;
	let tokensOut = 0;
	let cost = 0;
	let limits: (RateLimitFigures & { refusals: number; used: number }) | null = null;

	const draw = (): ProgressStep => ({
		draw: runLine({
			done,
			planned: Math.max(plannedCalls, done),
			made: done - (doneAtStart ?? 0),
			elapsed: (now() - started) / 1000,
			tokensIn,
			tokensOut,
			cost,
			priced: opts.priced,
			limits,
			now: now(),
			columns: opts.columns(),
		}),
	});

	return (event) => {
		switch (event.type) {
			case 'node-planned':
				plannedCalls = event.planned;
				return [];
			case 'run-started':
				plannedCalls = event.planned;
				doneAtStart = event.done;
				done = event.done;
				return [{ say: runStartedLine(event) }];
			case 'usage':
				// Concurrent calls report their totals after saving, so an earlier call's (smaller)
				// totals can arrive after a later call's; the line only moves forward.
				if (event.totals.calls < done) return [];
				done = event.totals.calls;
				tokensIn = event.totals.input;
				tokensOut = event.totals.output;
				cost = event.totals.cost;
				return [draw()];
			case 'retry':
				return [{ say: `${name(event.node)}: retrying (${event.reason})` }];
			case 'rate-limit': {
				const waited = limits?.wait;
				limits = event;
				// A wait that ends is news too: the line goes back to the counts.
				return event.wait || waited ? [draw()] : [];
			}
			case 'node-failed':
				return [{ say: `${name(event.node)} failed: ${event.error}` }];
			case 'run-finished': {
				const steps: ProgressStep[] = [];
				// A finished run made every call it needed: the last line says so, whatever was estimated.
				done = Math.max(done, event.totals.calls);
				if (event.status === 'done' && plannedCalls > done) {
					plannedCalls = done;
					steps.push(draw());
				}
				return [...steps, { end: true }, ...spentStep(limits)];
			}
			default:
				return [];
		}
	};
}

/**
 * The progress of an annotation: calls answered of those planned, sentences, tokens, cost, and the
 * ETA from both the pace and the rate limits; attempts the server refused are counted apart.
 */
export function annotateProgress(opts: ProgressClock): (event: AnnotatorEvent) => ProgressStep[] {
	const { now } = opts;
	const started = now();
	let atStart = 0;
	let annotated = 0;
	let sentences = 0;
	let calls = 0;
	let planned = 0;
	let totals: Extract<AnnotatorEvent, { type: 'usage' }>['totals'] | null = null;
	let limits: (RateLimitFigures & { refusals: number; used: number }) | null = null;
	const draw = (): ProgressStep[] => {
		const text = annotateLine({
			calls,
			planned,
			made: calls - atStart,
			annotated,
			sentences,
			elapsed: (now() - started) / 1000,
			totals,
			limits,
			now: now(),
			columns: opts.columns(),
		});
		return text === null ? [] : [{ draw: text }];
	};
	return (event) => {
		switch (event.type) {
			case 'annotate-started':
				atStart = event.recovered;
				calls = event.recovered;
				planned = event.recovered + event.units;
				sentences = event.sentences;
				return [{ say: annotateStartedLine(event) }];
			case 'annotation':
				annotated += 1;
				return [];
			case 'usage':
				// Concurrent calls report their totals after saving, so an earlier call's (smaller)
				// totals can arrive after a later call's; the line only moves forward.
				if (event.totals.calls < calls) return [];
				calls = event.totals.calls;
				planned = event.planned;
				totals = event.totals;
				return draw();
			case 'annotate-retry':
				return [{ say: `${sentencesName(event.summary, event.sentences)}: asking again (${event.reason})` }];
			case 'rate-limit': {
				const waited = limits?.wait;
				limits = event;
				// A wait that ends is news too: the line goes back to the counts.
				return event.wait || waited ? draw() : [];
			}
			case 'annotate-failed':
				return [{ say: `${sentencesName(event.summary, event.sentences)} failed: ${event.error}` }];
			case 'annotate-finished':
				return [{ end: true }, ...spentStep(limits)];
			default:
				return [];
		}
	};
}

/** What the rate limits cost, said once the work ends, when they held it back at all. */
function spentStep(limits: Parameters<typeof limitsSpent>[0]): ProgressStep[] {
	const spent = limitsSpent(limits);
	return spent ? [{ say: spent }] : [];
}

/** "[2/8] book-hier-gpt: started": a line about one of a study's `cells`, the `index`th from 0. */
export function cellLine(index: number, cells: number, key: string, text: string): string {
	return `[${index + 1}/${cells}] ${key}: ${text}`;
}

/** A study's headless progress: a line per change of a cell's state, and the rate limits' waits. */
export function studyProgress(cells: number, now: () => number): (event: StudyEvent) => string[] {
	let waitSaid = 0;
	return (event) => {
		if (event.type === 'rate-limit') {
			// A wait is said when one begins, at most twice a minute: a paced study waits before most calls.
			const waiting = rateWaitText(event, now());
			if (!waiting || now() - waitSaid < 30_000) return [];
			waitSaid = now();
			return [waiting];
		}
		if (!('cell' in event)) return [];
		const { cell } = event;
		const said = cellText(event);
		return said === null ? [] : [cellLine(event.index, cells, cell.key, said)];
	};
}

/** What a study's event says of its cell, or null when it is not said headless. */
function cellText(event: Extract<StudyEvent, { cell: unknown }>): string | null {
	const { cell } = event;
	switch (event.type) {
		case 'cell-skipped':
			return 'done already, skipped';
		case 'cell-started':
			return `${event.resumed ? 'resumed' : 'started'} (session ${cell.session})`;
		case 'cell-ran':
			return event.status === 'done'
				? `done: ${counted(cell.calls, 'call')}, ${usd(cell.cost)}, ${counted(cell.words ?? 0, 'word')}`
				: event.status === 'failed'
					? `failed: ${cell.error ?? 'unknown error'}`
					: event.status;
		case 'cell-scored':
			if (event.already) return 'scored already';
			return (
				`scored with ${event.scorer}: BooookScore ${scoreText(cell.score, 'n/a')}` +
				(event.annotated && cell.scoring
					? `, ${counted(cell.scoring.calls, 'call')}, ${usd(cell.scoring.cost)}; the cell: ${usd(cellCost(cell))}`
					: '')
			);
		case 'cell-scoring-failed':
			return `scoring failed: ${event.error}`;
		case 'cell-error':
			return `failed: ${event.error}`;
		default:
			return null;
	}
}
