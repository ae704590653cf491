import type { Key } from 'ink';
import type { KeyPress } from './binding.ts';

/**
 * One event from Ink into the key presses it holds. Ink cuts its input at escape sequences only,
 * so keys typed faster than the terminal is read arrive as one string ("modd", "fix\x13"): each
 * character is its own press here, control characters included, so a letter that opens a field
 * and the letters typed into it, or a text and the ctrl-s that saves it, are never one key.
 */
export function pressesOf(input: string, key: Key): KeyPress[] {
	const named =
		key.upArrow ||
		key.downArrow ||
		key.leftArrow ||
		key.rightArrow ||
		key.pageUp ||
		key.pageDown ||
		key.home ||
		key.end ||
		key.return ||
		key.escape ||
		key.tab ||
		key.backspace ||
		key.delete;
	if (named || [...input].length <= 1) return [fromInk(input, key)];
	// A pasted Windows line end is one enter, not two.
	return [...input.replace(/\r\n/gu, '\r')].map(fromChar);
}

function fromInk(input: string, key: Key): KeyPress {
	const press: KeyPress = { input };
	for (const flag of FLAGS) if (key[flag]) press[flag] = true;
	// A lone control character Ink did not name (it does not name ctrl-s when it comes alone on some terminals).
	if (!key.ctrl && input.length === 1 && isControl(input)) return fromChar(input);
	return press;
}

const FLAGS = [
	'upArrow',
	'downArrow',
	'leftArrow',
	'rightArrow',
	'pageUp',
	'pageDown',
	'home',
	'end',
	'return',
	'escape',
	'tab',
	'backspace',
	'delete',
	'ctrl',
	'meta',
	'shift',
] as const;

function isControl(c: string): boolean {
	const code = c.codePointAt(0)!;
	return code < 0x20 || code === 0x7f;
}

/** A character read raw, as a terminal sends it. */
function fromChar(c: string): KeyPress {
	switch (c) {
		case '\r':
		case '\n':
			return { input: '', return: true };
		case '\t':
			return { input: '', tab: true };
		case '\x7f':
		case '\b':
			return { input: '', backspace: true };
		case '\x1b':
			return { input: '', escape: true, meta: true };
	}
	const code = c.codePointAt(0)!;
	// Ctrl with a letter sends the letter's position in the alphabet (ctrl-a is 1, ctrl-s is 19).
	if (code >= 1 && code <= 26) return { input: String.fromCodePoint(code + 96), ctrl: true };
	if (code < 0x20) return { input: '' };
	return /\p{Lu}/u.test(c) ? { input: c, shift: true } : { input: c };
}
