import { counted } from '../format/count.ts';
import { costText } from '../format/cost.ts';
import type { BookSessionData, StateView } from '../store/session.ts';
import { showData } from '../app/show.ts';
import { output, type Stream } from './output.ts';

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
		`${counted(s.tokens, 'token')}, ${counted(s.words, 'word')}, ${s.repeated3gramPct.toFixed(1)}% repeated 3-grams, ${s.novel3gramPct.toFixed(1)}% novel 3-grams; ` +
			`${counted(shown.usage.calls, 'call')}, ${counted(shown.usage.input + shown.usage.output, 'token')}, ${costText(shown.cost, shown.priced)} (${shown.provider}). ` +
			`Session ${data.id}`,
	);
}
