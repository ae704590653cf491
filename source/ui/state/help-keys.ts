import type { Action } from '../keys/binding.ts';

/** What a key does while the help is open: closes it (null), or scrolls it to a new first line. */
export function helpScroll(scroll: number, action: Action | null, page: number): number | null {
	switch (action) {
		case 'help':
		case 'back':
			return null;
		case 'up':
			return Math.max(0, scroll - 1);
		case 'down':
			return scroll + 1;
		case 'scrollUp':
			return Math.max(0, scroll - page);
		case 'scrollDown':
			return scroll + page;
		default:
			return scroll;
	}
}
