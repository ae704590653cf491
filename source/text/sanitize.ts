/**
 * Text from books and models is untrusted: before it reaches a terminal, remove what a terminal
 * would act on — escape sequences (CSI, OSC such as clipboard writes and title changes, DCS/PM/APC,
 * and lone ESC), C0 and C1 control characters other than newline and tab (a carriage return could
 * overwrite a line), and bidirectional overrides that reorder what is shown.
 */
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]P^_X][\s\S]*?(?:\x07|\x1b\\|\x9c)|\x9b[0-?]*[ -/]*[@-~]|[\x9d\x90\x9e\x9f\x98][\s\S]*?(?:\x07|\x1b\\|\x9c)|\x1b[@-Z\\-_]?/gu;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/gu;

export function sanitize(text: string): string {
	return text.replace(ESCAPES, '').replace(CONTROLS, '');
}

/**
 * `value` as JSON in which nothing a terminal would act on is raw, while every value parses back
 * unchanged: JSON.stringify escapes C0 controls itself (ESC becomes \u001b); DEL, C1 controls and
 * bidirectional overrides, which it leaves raw, are escaped here the same way. Outside strings JSON
 * holds only newlines and spaces, so every character replaced is inside a string.
 */
export function safeJson(value: unknown, indent?: number): string {
	return JSON.stringify(value, null, indent).replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
