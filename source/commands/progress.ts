import type { NodeRef } from '../domain.ts';
import type { AnnotatorEvent } from '../engine/annotator.ts';
import type { EngineEvent } from '../engine/events.ts';
import { annotateProgress, runProgress, type ProgressStep } from '../app/progress.ts';
import { output, statusLine, terminalColumns, type StatusLine, type Stream } from './output.ts';

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
	const now = opts.now ?? Date.now;
	const stdout = output(opts.stdout);
	const status = statusLine(opts.stderr, now);
	const progress = runProgress({
		now,
		columns: () => terminalColumns(opts.stderr),
		priced: opts.priced ?? true,
		name: opts.name,
	});
	return (event: EngineEvent) => (opts.json ? stdout.json(event) : written(status, progress(event)));
}

/** Progress on stderr while annotating (app/progress.ts `annotateProgress`). */
export function progressReporter(stderr: Stream, now: () => number = Date.now) {
	const status = statusLine(stderr, now);
	const progress = annotateProgress({ now, columns: () => terminalColumns(stderr) });
	return (event: AnnotatorEvent) => written(status, progress(event));
}

function written(status: StatusLine, steps: ProgressStep[]): void {
	for (const step of steps)
		if ('say' in step) status.say(step.say);
		else if ('draw' in step) status.draw(step.draw);
		else status.end();
}
