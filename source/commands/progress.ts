import type { NodeRef } from '../domain.ts';
import type { AnnotatorEvent } from '../engine/annotator.ts';
import type { EngineEvent } from '../engine/events.ts';
import { sentencesName } from '../format/places.ts';
import {
	annotateLine,
	annotateStartedLine,
	limitsSpent,
	runLine,
	runStartedLine,
	type RateLimitFigures,
} from '../format/progress.ts';
import { output, statusLine, terminalColumns, type Stream } from './output.ts';

/**
 * Headless reporting: `--json` writes every engine event as one line to stdout; otherwise a progress
 * line (calls done/planned, tokens, cost, ETA) goes to stderr, redrawn in place on a terminal and one
 * line per finished call elsewhere.
 */
export function headlessReporter(opts: {
	json: boolean;
	stdout: Stream;
	stderr: Stream;
	priced?: boolean;
	now?: () => number;
	name?: (node: NodeRef) => string;
}) {
	// As the run screen and the run's error name a node (summarize/places.ts).
	const name = opts.name ?? ((node: NodeRef) => `node ${node}`);
	const now = opts.now ?? Date.now;
	const started = now();
	const stdout = output(opts.stdout);
	const status = statusLine(opts.stderr, now);
	let doneAtStart: number | null = null;
	// The engine's estimate, as the run-started and node-planned events last reported it.
	let plannedCalls = 0;
	let done = 0;
	let tokensIn = 0;
	let tokensOut = 0;
	let cost = 0;
	let limits: (RateLimitFigures & { refusals: number; used: number }) | null = null;

	const line = () => {
		const planned = Math.max(plannedCalls, done);
		return runLine({
			done,
			planned,
			made: done - (doneAtStart ?? 0),
			elapsed: (now() - started) / 1000,
			tokensIn,
			tokensOut,
			cost,
			priced: opts.priced ?? true,
			limits,
			now: now(),
			columns: terminalColumns(opts.stderr),
		});
	};

	return (event: EngineEvent) => {
		if (opts.json) stdout.json(event);
		switch (event.type) {
			case 'node-planned':
				plannedCalls = event.planned;
				break;
			case 'run-started':
				plannedCalls = event.planned;
				doneAtStart = event.done;
				done = event.done;
				if (!opts.json) status.say(runStartedLine(event));
				break;
			case 'usage':
				// Concurrent calls report their totals after saving, so an earlier call's (smaller)
				// totals can arrive after a later call's; the line only moves forward.
				if (event.totals.calls < done) break;
				done = event.totals.calls;
				tokensIn = event.totals.input;
				tokensOut = event.totals.output;
				cost = event.totals.cost;
				if (!opts.json) status.draw(line());
				break;
			case 'retry':
				if (!opts.json) status.say(`${name(event.node)}: retrying (${event.reason})`);
				break;
			case 'rate-limit': {
				const waited = limits?.wait;
				limits = event;
				// A wait that ends is news too: the line goes back to the counts.
				if (!opts.json && (event.wait || waited)) status.draw(line());
				break;
			}
			case 'node-failed':
				if (!opts.json) status.say(`${name(event.node)} failed: ${event.error}`);
				break;
			case 'run-finished':
				// A finished run made every call it needed: the last line says so, whatever was estimated.
				done = Math.max(done, event.totals.calls);
				if (event.status === 'done' && plannedCalls > done) {
					plannedCalls = done;
					if (!opts.json) status.draw(line());
				}
				if (!opts.json) {
					status.end();
					const spent = limitsSpent(limits);
					if (spent) status.say(spent);
				}
				break;
		}
	};
}

/**
 * Progress on stderr while annotating: calls answered of those planned, sentences, tokens, cost,
 * and the ETA from both the pace and the rate limits; attempts the server refused are counted apart.
 */
export function progressReporter(stderr: Stream, now: () => number = Date.now) {
	const started = now();
	const status = statusLine(stderr, now);
	let atStart = 0;
	let annotated = 0;
	let sentences = 0;
	let calls = 0;
	let planned = 0;
	let totals: Extract<AnnotatorEvent, { type: 'usage' }>['totals'] | null = null;
	let limits: (RateLimitFigures & { refusals: number; used: number }) | null = null;
	const line = () =>
		annotateLine({
			calls,
			planned,
			made: calls - atStart,
			annotated,
			sentences,
			elapsed: (now() - started) / 1000,
			totals,
			limits,
			now: now(),
			columns: terminalColumns(stderr),
		});
	const draw = () => {
		const text = line();
		if (text !== null) status.draw(text);
	};
	return (event: AnnotatorEvent) => {
		switch (event.type) {
			case 'annotate-started':
				atStart = event.recovered;
				calls = event.recovered;
				planned = event.recovered + event.units;
				sentences = event.sentences;
				status.say(annotateStartedLine(event));
				break;
			case 'annotation':
				annotated += 1;
				break;
			case 'usage':
				// Concurrent calls report their totals after saving, so an earlier call's (smaller)
				// totals can arrive after a later call's; the line only moves forward.
				if (event.totals.calls < calls) break;
				calls = event.totals.calls;
				planned = event.planned;
				totals = event.totals;
				draw();
				break;
			case 'annotate-retry':
				status.say(`${sentencesName(event.summary, event.sentences)}: asking again (${event.reason})`);
				break;
			case 'rate-limit': {
				const waited = limits?.wait;
				limits = event;
				// A wait that ends is news too: the line goes back to the counts.
				if (event.wait || waited) draw();
				break;
			}
			case 'annotate-failed':
				status.say(`${sentencesName(event.summary, event.sentences)} failed: ${event.error}`);
				break;
			case 'annotate-finished': {
				status.end();
				const spent = limitsSpent(limits);
				if (spent) status.say(spent);
				break;
			}
		}
	};
}
