import { sessionsDirArg } from '../config.ts';
import type { OpenRefusal } from '../app/open-session.ts';
import { refusal } from '../format/open-refusal.ts';
import { say } from '../program.ts';

/** Why a saved session was not opened, one line, worded for `from` (format/open-refusal.ts) with its commands said. */
export function refusalLine(
	reason: OpenRefusal,
	dir: string,
	from: 'resume' | 'home',
	program: string,
): string {
	return say(refusal(reason, sessionsDirArg(dir), from), program);
}
