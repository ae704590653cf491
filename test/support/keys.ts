/** What a terminal sends for a key press, for the screen tests to write to a screen's stdin. */
export const KEYS = {
	up: '\u001B[A',
	down: '\u001B[B',
	right: '\u001B[C',
	left: '\u001B[D',
	pageDown: '\u001B[6~',
	escape: '\u001B',
	enter: '\r',
	tab: '\t',
	backspace: '\u007F',
	ctrlC: '\u0003',
	ctrlS: '\u0013',
} as const;
