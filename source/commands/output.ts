import cliTruncate from 'cli-truncate';
import { oneLine, safeJson, sanitize } from '../text/sanitize.ts';

export type Stream = NodeJS.WritableStream | NodeJS.WriteStream;

/**
 * The one place the commands write to stdout and stderr. Book titles, summaries, model answers and
 * server errors are untrusted and reach the output along many paths; making each write safe here
 * means no path can forget it. Text loses escape sequences, control characters and bidirectional
 * overrides (newlines and tabs are kept); JSON keeps every value but has those characters escaped.
 */
export interface Output {
	/** Text, made safe; the caller supplies the newlines. `eol` is a line end to keep (`\r\n` for CSV). */
	text(text: string, eol?: string): void;
	/** One line: `text` made safe, then a newline. */
	line(text: string): void;
	/** A JSON value on one line, or indented by `indent`, then a newline. */
	json(value: unknown, indent?: number): void;
}

export function output(stream: Stream): Output {
	return {
		text: (text, eol) => void stream.write(safeText(text, eol)),
		line: (text) => void stream.write(`${sanitize(text)}\n`),
		json: (value, indent) => void stream.write(`${safeJson(value, indent)}\n`),
	};
}

/** `text` made safe for a terminal, keeping the line end `eol` (which sanitize would cut apart when it is `\r\n`). */
export function safeText(text: string, eol = '\n'): string {
	return eol === '\n' ? sanitize(text) : text.split(eol).map(sanitize).join(eol);
}

/** `value` as JSON safe to print or write: control characters and bidirectional overrides escaped, the values unchanged. */
export function jsonText(value: unknown, indent?: number): string {
	return safeJson(value, indent);
}

/** Untrusted text (a title, a file name, an error) inside a line: made safe, and its line breaks made spaces. */
export function safeLine(text: string): string {
	return oneLine(text);
}

/** The terminal's width when `stream` is one; null when it is piped or to a file (nothing to fit). */
export function terminalColumns(stream: Stream): number | null {
	return 'isTTY' in stream &&
		stream.isTTY === true &&
		typeof stream.columns === 'number' &&
		stream.columns > 0
		? stream.columns
		: null;
}

export interface StatusLine {
	/** The progress line: redrawn in place on a terminal; elsewhere one line every few seconds. */
	draw(text: string): void;
	/** A message on its own line, above the progress line. */
	say(text: string): void;
	/** The progress line is final: a terminal moves past it; elsewhere its last text is written. */
	end(): void;
}

/** How often a progress line is written when it goes to a pipe or a file, not a terminal. */
export const PIPED_EVERY_MS = 5000;

/**
 * A progress line on `stream` (stderr). Its own cursor controls are the only control characters
 * booook writes outside the terminal app; the text itself is made safe like all other output. On a
 * terminal it is cut to the width: a line that wrapped would leave its first row behind at every
 * redraw (the cursor returns to the start of the last row only).
 */
export function statusLine(
	stream: Stream,
	now: () => number = () => performance.now(),
	pipedEveryMs = PIPED_EVERY_MS,
): StatusLine {
	const tty = 'isTTY' in stream && stream.isTTY === true;
	let drawn = false;
	let writtenAt: number | null = null;
	let unwritten: string | null = null;
	const clear = () => {
		if (drawn) stream.write('\r\x1b[2K');
		drawn = false;
	};
	const fit = (text: string) => {
		const columns = terminalColumns(stream);
		return columns === null ? text : cliTruncate(text, Math.max(1, columns - 1));
	};
	return {
		draw(text) {
			if (tty) {
				stream.write(`\r\x1b[2K${fit(sanitize(text))}`);
				drawn = true;
				return;
			}
			const at = now();
			if (writtenAt !== null && at - writtenAt < pipedEveryMs) {
				unwritten = text;
				return;
			}
			writtenAt = at;
			unwritten = null;
			stream.write(`${sanitize(text)}\n`);
		},
		say(text) {
			clear();
			stream.write(`${sanitize(text)}\n`);
		},
		end() {
			if (drawn) stream.write('\n');
			if (unwritten !== null) stream.write(`${sanitize(unwritten)}\n`);
			drawn = false;
			unwritten = null;
		},
	};
}
