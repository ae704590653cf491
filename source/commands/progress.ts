import type { NodeRef } from '../domain.ts';
import { costText, usd } from '../format/cost.ts';
import { formatInt, counted } from '../format/count.ts';
import { formatSeconds } from '../format/duration.ts';
import { sentencesName } from '../format/places.ts';
import type { AnnotatorEvent } from '../engine/annotator.ts';
import type { EngineEvent } from '../engine/events.ts';
import {
	etaUnderLimits,
	limitedEtaSeconds,
	rateWaitText,
	remainingSeconds,
	type RateLimitFigures,
} from '../format/progress.ts';
import { output, statusLine, terminalColumns, type Stream } from './output.ts';
import { fixed } from '../format/number.ts';

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
		const madeHere = done - (doneAtStart ?? 0);
		const elapsed = (now() - started) / 1000;
		const eta = etaUnderLimits(
			remainingSeconds(planned, done, madeHere, elapsed),
			limitedEtaSeconds(planned - done, limits),
		);
		const etaText = `ETA ${eta === null ? '?' : formatSeconds(eta)}`;
		const counts = `[${done}/${planned} calls]`;
		// While the limits hold calls back, that is the news: the line keeps the counts and gives the wait the rest of the width.
		const waiting = waitingLine(
			[`${counts} ${formatSeconds(elapsed)} elapsed, ${etaText}`, `${counts} ${etaText}`, counts],
			limits,
			now(),
			opts.stderr,
		);
		return (
			waiting ??
			`${counts} ${counted(tokensIn, 'token')} in, ${formatInt(tokensOut)} out, ${costText(cost, opts.priced ?? true)}, ` +
				`${formatSeconds(elapsed)} elapsed, ${etaText}`
		);
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
				if (!opts.json)
					status.say(
						`${event.isLLM ? `${event.provider} ${event.model}` : 'extractive baseline (not an LLM)'}, ` +
							`${event.method === 'hier' ? 'hierarchical merging' : 'incremental updating'}, session ${event.session}`,
					);
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
 * `counts; waiting for the rate limit: …` while the limits hold calls back (null when they do not).
 * On a terminal the line must fit its width: the first of `counts`' forms (fullest first) beside which
 * the wait fits, and says so when another process uses the limit too (that is why the run is slow).
 */
function waitingLine(
	counts: string[],
	limits: RateLimitFigures | null,
	now: number,
	stream: Stream,
): string | null {
	if (!limits?.wait) return null;
	const columns = terminalColumns(stream);
	const lines = counts.map((prefix) => {
		// The status line keeps its last column free.
		const room = columns === null ? Infinity : columns - 1 - prefix.length - 2;
		const waiting = rateWaitText(limits, now, room)!;
		const fits = waiting.length <= room && (!limits.wait?.shared || /another process/u.test(waiting));
		return { line: `${prefix}; ${waiting}`, fits };
	});
	return (lines.find((l) => l.fits) ?? lines.at(-1)!).line;
}

/**
 * What the rate limits cost a run, said once it ends when they held it back at all: the 429s, and
 * the tokens its calls asked for (prompt plus output limit, what the limits count) against those used.
 */
export function limitsSpent(
	limits: { refusals: number; answered: number; asked: number; used: number; limits: object } | null,
): string | null {
	if (!limits || limits.answered === 0) return null;
	const share = limits.used > 0 ? ` (${fixed(limits.asked / limits.used, 2)}× what was used)` : '';
	return (
		`rate limits: ${counted(limits.refusals, 'answer')} of 429; the calls asked for ${counted(limits.asked, 'token')} ` +
		`of the limits and used ${formatInt(limits.used)}${share}`
	);
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
	const line = () => {
		const elapsed = (now() - started) / 1000;
		const eta = etaUnderLimits(
			remainingSeconds(planned, calls, calls - atStart, elapsed),
			limitedEtaSeconds(planned - calls, limits),
		);
		const etaText = `ETA ${eta === null ? '?' : formatSeconds(eta)}`;
		const refused = limits && limits.refusals > 0 ? `, ${limits.refusals} refused (429)` : '';
		const calling = `[${calls}/${planned} calls]`;
		const counts = `[${calls}/${planned} calls${refused}] ${annotated}/${sentences} sentences`;
		const waiting = waitingLine(
			[
				`${counts}, ${etaText}`,
				`${calling} ${annotated}/${sentences} sentences, ${etaText}`,
				`${calling} ${etaText}`,
				calling,
			],
			limits,
			now(),
			stderr,
		);
		if (waiting !== null) return waiting;
		if (totals === null) return null;
		const t = totals;
		return (
			`${counts}, ${counted(t.input, 'token')} in (${formatInt(t.cached)} cached), ${formatInt(t.output)} ` +
			`out, ${usd(t.cost)} (cache saved ${usd(t.saved)}), ${formatSeconds(elapsed)} elapsed, ${etaText}`
		);
	};
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
				status.say(
					`${event.annotator} annotating ${counted(event.sentences, 'sentence')} of ${counted(event.summaries.length, 'summary', 'summaries')} ` +
						`in ${counted(event.units, 'call')}` +
						(event.recovered > 0
							? ` (${counted(event.recovered, 'answer')} recovered from the call log)`
							: '') +
						`, session ${event.session}`,
				);
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
