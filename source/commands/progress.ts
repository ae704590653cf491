import type { EngineEvent } from '../engine/events.ts';
import { sanitize } from '../text/sanitize.ts';

/**
 * Headless reporting: `--json` writes every engine event as one line to stdout; otherwise a progress
 * line (calls done/planned, tokens, cost, ETA) goes to stderr, redrawn in place on a terminal and one
 * line per finished call elsewhere.
 */
export function headlessReporter(opts: { json: boolean; stdout: NodeJS.WritableStream; stderr: NodeJS.WriteStream | NodeJS.WritableStream; now?: () => number }) {
	const now = opts.now ?? Date.now;
	const started = now();
	const tty = 'isTTY' in opts.stderr && opts.stderr.isTTY === true;
	let doneAtStart: number | null = null;
	// The engine's estimate, as the run-started and node-planned events last reported it.
	let plannedCalls = 0;
	let done = 0;
	let tokensIn = 0;
	let tokensOut = 0;
	let cost = 0;
	let drawn = false;

	const line = () => {
		const planned = Math.max(plannedCalls, done);
		const madeHere = done - (doneAtStart ?? 0);
		const elapsed = (now() - started) / 1000;
		const eta = madeHere > 0 && planned > done ? formatSeconds(((planned - done) * elapsed) / madeHere) : '?';
		return `[${done}/${planned} calls] ${tokensIn.toLocaleString('en-US')} tokens in, ${tokensOut.toLocaleString('en-US')} out, $${cost.toFixed(4)}, ${formatSeconds(elapsed)} elapsed, ETA ${eta}`;
	};
	const draw = (text: string) => {
		if (tty) opts.stderr.write(`\r\x1b[2K${text}`);
		else opts.stderr.write(`${text}\n`);
		drawn = tty;
	};
	const say = (text: string) => {
		if (drawn) opts.stderr.write('\r\x1b[2K');
		opts.stderr.write(`${text}\n`);
		drawn = false;
	};

	return (event: EngineEvent) => {
		if (opts.json) opts.stdout.write(`${JSON.stringify(event)}\n`);
		switch (event.type) {
			case 'node-planned':
				plannedCalls = event.planned;
				break;
			case 'run-started':
				plannedCalls = event.planned;
				doneAtStart = event.done;
				done = event.done;
				if (!opts.json) say(`${event.isLLM ? `${event.provider} ${event.model}` : 'extractive baseline (not an LLM)'}, ${event.method === 'hier' ? 'hierarchical merging' : 'incremental updating'}, session ${event.session}`);
				break;
			case 'usage':
				done = event.totals.calls;
				tokensIn = event.totals.input;
				tokensOut = event.totals.output;
				cost = event.totals.cost;
				if (!opts.json) draw(line());
				break;
			case 'retry':
				if (!opts.json) say(`${event.node}: retrying (${sanitize(event.reason)})`);
				break;
			case 'node-failed':
				if (!opts.json) say(`${event.node} failed: ${sanitize(event.error)}`);
				break;
			case 'run-finished':
				if (!opts.json && drawn) opts.stderr.write('\n');
				drawn = false;
				break;
		}
	};
}

export function formatSeconds(seconds: number): string {
	if (!Number.isFinite(seconds)) return '?';
	const s = Math.round(seconds);
	if (s < 60) return `${s}s`;
	if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
	return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
