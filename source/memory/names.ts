import { contentTokens } from '../text/textrank.ts';
import { runsOf } from '../text/runs.ts';
import { isCapitalized, sentenceWords, withoutAccents } from '../text/stems.ts';

/**
 * Character names and their substitution for other-book scenes (NarrativeXL, appendix A.2): the
 * most frequent names of a distractor's book become this book's, rank for rank, so a scene from
 * another book cannot be told apart by the names it mentions. Pure.
 */

/** How many names a book's list holds unless told: the cast a scene summary is likely to mention. */
export const NAME_LIMIT = 20;

/**
 * Words that stand before a name and are no name themselves; they stay as they are ("Mr. Darcy"
 * becomes "Mr. Victor"). A period after one of them ends no sentence.
 */
const TITLES = new Set(
	(
		'mr mrs ms miss dr sir madam madame mme mademoiselle mlle monsieur lady lord prince princess count ' +
		'countess duke duchess baron baroness king queen emperor empress general colonel captain major ' +
		'lieutenant uncle aunt saint st father mother sister brother doctor professor master mistress'
	).split(' '),
);

/** Capitalized everywhere, named by the calendar and by headings, and no character. */
const CALENDAR_AND_HEADINGS = new Set(
	(
		'monday tuesday wednesday thursday friday saturday sunday january february march april may june ' +
		'july august september october november december chapter volume book part letter section canto ' +
		'prologue epilogue preface contents appendix'
	).split(' '),
);

/**
 * Words before a place or a people, seldom before a person: "in Geneva", "the French". A person's
 * name takes no article and seldom stands where a place does.
 */
const PLACE_WORDS = new Set(['the', 'in', 'at', 'from', 'into', 'near', 'through']);
/** A word standing after one of them in more than this share of its uses names a place or a people. */
const PLACE_SHARE = 0.1;

/** A name is capitalized where it stands inside a sentence at least this share of the times it is seen. */
const CAPITALIZED_SHARE = 0.9;

/**
 * The form a name is matched by: a summary may leave out the accents its book writes ("Natasha" for
 * "Natásha"). Case counts: "Will" is a name where "will" is not.
 */
const nameKey = (word: string): string => withoutAccents(word);

/** "Darcy's" and "Darcys'" are Darcy's. */
function withoutPossessive(word: string): string {
	return word.replace(/['’]s?$/u, '');
}

/**
 * The most frequent character names of `text` (a book, or a set of its scenes), most frequent
 * first, as they are spelled. A name is a word that is capitalized where it stands inside a
 * sentence (or after a title: "Mr. Darcy") and almost never written lowercase, that is no
 * stopword, title, weekday, month or heading word, and that seldom follows an article or a
 * preposition of place, as places and peoples do ("in Geneva", "the French"). The rule needs no
 * list of names.
 */
export function characterNames(text: string, limit = NAME_LIMIT): string[] {
	const counts = new Map<
		string,
		{ capitalized: number; lowercase: number; placeLike: number; spellings: Map<string, number> }
	>();
	let previous = { key: '', end: 0 };
	for (const { start, end, inside } of sentenceWords(text)) {
		const word = text.slice(start, end);
		const bare = withoutPossessive(word);
		const key = nameKey(bare.toLowerCase());
		const afterTitle = TITLES.has(previous.key) && /^\.?[ \t]+$/u.test(text.slice(previous.end, start));
		const c = counts.get(key) ?? { capitalized: 0, lowercase: 0, placeLike: 0, spellings: new Map() };
		counts.set(key, c);
		if (!isCapitalized(word)) c.lowercase++;
		else if (inside || afterTitle) {
			c.capitalized++;
			if (bare === word && PLACE_WORDS.has(previous.key)) c.placeLike++;
			c.spellings.set(bare, (c.spellings.get(bare) ?? 0) + 1);
		}
		previous = { key, end };
	}
	const names: { name: string; count: number }[] = [];
	for (const [key, c] of counts) {
		if (c.capitalized === 0 || c.capitalized < CAPITALIZED_SHARE * (c.capitalized + c.lowercase)) continue;
		if (c.placeLike > PLACE_SHARE * c.capitalized || key.length < 2) continue;
		if (TITLES.has(key) || CALENDAR_AND_HEADINGS.has(key) || contentTokens(key).length === 0) continue;
		const [name] = [...c.spellings].reduce((a, b) => (b[1] > a[1] ? b : a));
		// A word in capitals throughout ("CHAPTER", "THE END") is typography, not a name.
		if (name.length > 1 && name === name.toUpperCase()) continue;
		names.push({ name, count: c.capitalized });
	}
	names.sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	return names.slice(0, limit).map((n) => n.name);
}

/**
 * Names of another book to names of this one, rank for rank: its most frequent becomes this
 * book's most frequent, and so on while both lists last. A name is one word, so each part of a
 * multi-word name ("Elizabeth Bennet") is replaced on its own and the same way wherever it stands.
 */
export function nameSubstitution(from: readonly string[], to: readonly string[]): Map<string, string> {
	const map = new Map<string, string>();
	for (let i = 0; i < Math.min(from.length, to.length); i++)
		if (!map.has(from[i]!)) map.set(from[i]!, to[i]!);
	return map;
}

/** Words as names are matched: "Darcy's" is "Darcy" and "s", so a possessive keeps its ending. */
const words = (text: string) => runsOf(text, '[\\p{L}\\p{N}]');

/**
 * The name a word is, of those keyed in `byKey`, and the plural ending it carries: "Rostovs" is the
 * family of "Rostóv". Undefined when it is none.
 */
function nameOf<T>(word: string, byKey: ReadonlyMap<string, T>): { name: T; ending: string } | undefined {
	const key = nameKey(word);
	const name = byKey.get(key);
	if (name !== undefined) return { name, ending: '' };
	const family = key.endsWith('s') ? byKey.get(key.slice(0, -1)) : undefined;
	return family === undefined ? undefined : { name: family, ending: 's' };
}

/**
 * `text` with each whole-word name of `map` replaced by its value, in one pass; a possessive's "'s"
 * and a family's plural "s" stay.
 */
export function substituteNames(text: string, map: ReadonlyMap<string, string>): string {
	const byKey = new Map([...map].map(([from, to]) => [nameKey(from), to]));
	const pieces: string[] = [];
	let from = 0;
	for (const [start, end] of words(text)) {
		const found = nameOf(text.slice(start, end), byKey);
		if (found === undefined) continue;
		pieces.push(text.slice(from, start), found.name, found.ending);
		from = end;
	}
	pieces.push(text.slice(from));
	return pieces.join('');
}

/** The names, of `names`, that occur in `text` as whole words (or a family's plural), in the order given. */
export function namesIn(text: string, names: Iterable<string>): string[] {
	const list = [...names];
	const byKey = new Map(list.map((n) => [nameKey(n), n]));
	const found = new Set<string>();
	for (const [start, end] of words(text)) {
		const name = nameOf(text.slice(start, end), byKey);
		if (name !== undefined) found.add(name.name);
	}
	return list.filter((n) => found.has(n));
}

/**
 * Another book's scene as a distractor for this book, its names replaced through `map`; null when
 * it cannot be one: it names a character of this book before substitution (it would then be about
 * someone this book knows), or a name of its own book is left after it (no name of this book
 * stood for it, and the name would give the scene away).
 */
export function otherBookScene(
	text: string,
	otherNames: readonly string[],
	thisNames: readonly string[],
	map: ReadonlyMap<string, string>,
): string | null {
	if (namesIn(text, thisNames).length > 0) return null;
	const substituted = substituteNames(text, map);
	const replaced = new Set(map.values());
	const left = namesIn(
		substituted,
		otherNames.filter((n) => !replaced.has(n)),
	);
	return left.length > 0 ? null : substituted;
}
