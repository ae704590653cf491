import path from 'node:path';
import { badInput } from '../errors.ts';

/** The files of one session directory (see docs/sessions.md, Sessions on disk). */
export const FILES = {
	book: 'book.txt',
	state: 'session.json',
	journal: 'changes.jsonl',
	calls: 'calls.jsonl',
	batches: 'batches.jsonl',
	lock: 'lock',
} as const;

const SLUG_MAX = 24;

/**
 * A session id a person can read and type: `<title slug>-<yyyymmdd>-<hhmmss>-<4 hex>`, in local
 * time because people read it. The random suffix keeps two runs of one book started in the same
 * second apart; `random` is injected so tests are deterministic.
 */
export function newSessionId(title: string, now: Date, random: () => number): string {
	const pad = (n: number, width = 2) => String(n).padStart(width, '0');
	const date = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}`;
	const time = `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
	const hex = Math.floor(random() * 0x10000)
		.toString(16)
		.padStart(4, '0')
		.slice(-4);
	return `${slug(title)}-${date}-${time}-${hex}`;
}

export function slug(title: string): string {
	const s = title
		.normalize('NFKD')
		.replace(/\p{M}+/gu, '')
		.toLowerCase()
		.replace(/[^a-z0-9]+/gu, '-')
		.replace(/^-+/u, '')
		.slice(0, SLUG_MAX)
		.replace(/-+$/u, '');
	return s || 'book';
}

// An id names a directory, so it must not be able to climb out of the sessions dir or hide itself.
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/u;

/** The end of a comparison's folder name (`NAME.compare`, beside the sessions it compares: store/comparison.ts). */
export const COMPARE_SUFFIX = '.compare';

export function checkSessionId(id: string): string {
	if (!ID_RE.test(id) || id.includes('..')) {
		throw badInput(
			`"${id}" is not a valid session id; use letters, digits, ".", "_" and "-" (starting with a letter or digit)`,
		);
	}
	// Such a folder is taken for a comparison's: the session list would pass over the session.
	if (id.endsWith(COMPARE_SUFFIX))
		throw badInput(
			`"${id}" is not a valid session id: a folder ending in ${COMPARE_SUFFIX} holds a comparison, ` +
				`and the session list would not show it; choose an id that does not end in ${COMPARE_SUFFIX}`,
		);
	return id;
}

export function sessionPath(dir: string, id: string): string {
	return path.join(dir, checkSessionId(id));
}
