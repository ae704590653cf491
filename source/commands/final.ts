import type { BookSessionData, StateView } from '../store/session.ts';
import { showData } from '../app/show.ts';
import { output, type Stream } from './output.ts';
import { spentFigures, summaryFigures } from '../format/summary.ts';

/** The final summary on stdout (so it can be piped), its stats on stderr. */
export function printFinal(
	data: StateView<BookSessionData>,
	book: string,
	stdout: Stream,
	stderr: Stream,
): void {
	const shown = showData(data, book);
	if (shown.summary === null) return;
	output(stdout).line(shown.summary);
	const s = shown.stats!;
	output(stderr).line(
		`${summaryFigures(s)}; ${spentFigures(shown.usage.calls, shown.usage.input + shown.usage.output, shown.cost, shown.priced)} ` +
			`(${shown.provider}). Session ${data.id}`,
	);
}
