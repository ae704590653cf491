import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * What English spelling says about a word's case, for the sentence splitter's orthographic test
 * (Kiss & Strunk's Punkt, §4.1.1): a word that is normally written in lower case and is not also a
 * name is evidence of a new sentence when it comes capitalised after a full stop. The evidence is the
 * en_US Hunspell dictionary (SCOWL, package `dictionary-en`): its lower-case entries are common
 * words, its capitalised entries names. Static data read once, on first use; nothing is written.
 */

export interface Lexicon {
	/** Normally written in lower case ("snow", "then"); inflections are folded to their stem. */
	common(word: string): boolean;
	/** Listed as a name ("Smith", "Snow", "Paris"). */
	name(word: string): boolean;
}

let loaded: Lexicon | null = null;

export function lexicon(): Lexicon {
	loaded ??= parse(
		readFileSync(join(dirname(createRequire(import.meta.url).resolve('dictionary-en')), 'index.dic'), 'utf8'),
	);
	return loaded;
}

function parse(dic: string): Lexicon {
	const lower = new Set<string>();
	const names = new Set<string>();
	// The first line is the entry count; each entry is "word/FLAGS".
	for (const line of dic.split('\n').slice(1)) {
		const word = line.split('/', 1)[0]!.trim();
		if (word === '') continue;
		if (word === word.toLowerCase()) lower.add(word);
		// Only name-shaped entries: "He", "In" and "NOW" are symbols and acronyms, not names.
		else if (/^\p{Lu}\p{Ll}{2,}$/u.test(word)) names.add(word.toLowerCase());
	}
	const common = (word: string): boolean => {
		const w = word.toLowerCase();
		if (lower.has(w)) return true;
		// Regular inflections carry the stem's case; Hunspell lists stems with affix flags.
		for (const [suffix, add] of INFLECTIONS) {
			if (w.length > suffix.length + 2 && w.endsWith(suffix) && lower.has(w.slice(0, -suffix.length) + add))
				return true;
		}
		return false;
	};
	return { common, name: (word) => names.has(word.toLowerCase()) };
}

const INFLECTIONS: readonly (readonly [string, string])[] = [
	["'s", ''],
	['s', ''],
	['es', ''],
	['ies', 'y'],
	['ed', ''],
	['ed', 'e'],
	['ied', 'y'],
	['ing', ''],
	['ing', 'e'],
	['er', ''],
	['est', ''],
	['ly', ''],
];
