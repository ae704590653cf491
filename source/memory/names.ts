import nlp from 'compromise';
import { seededRandom, shuffle } from '../score/bootstrap.ts';
import { contentTokens } from '../text/textrank.ts';
import { runsOf } from '../text/runs.ts';
import { isCapitalized, sentenceWords, withoutAccents } from '../text/stems.ts';

/**
 * A book's people and places, and the substitution of other books' names by this book's for
 * other-book scenes (NarrativeXL, appendix A.2): a scene from another book must not be told apart
 * by the names it mentions. NarrativeXL found names with spaCy; here compromise (an English NLP
 * library with a lexicon of first names by gender, surnames and places, and a tagger that reads a
 * word in its sentence) tags sampled sentences around each capitalized word, and the book's own
 * usage ("Mr. Wickham", "at Longbourn", "she" after "Kitty") settles what the tagger cannot: a
 * surname it takes for a place, a nickname it does not know. Pure.
 */

/** People a book's list holds unless told: enough that a scene's minor characters are found too. */
export const PEOPLE_LIMIT = 40;
/** Places a book's list holds unless told. */
export const PLACE_LIMIT = 30;
/** Capitalized words weighed as names at most, the most frequent first. */
const CANDIDATES = 90;
/** Sentences around a word the tagger reads, spread over the book. */
const SAMPLES = 5;
/** Characters either side of a sampled word: about a sentence. */
const WINDOW = 100;

export type Gender = 'male' | 'female';
export type Role = 'first' | 'last';

export interface Person {
	/** As the book spells it most often. */
	name: string;
	/** A given name ("Elizabeth", "Lizzy") or a surname ("Darcy", "Bennet"). */
	role: Role;
	/** Null where the book and the tagger do not tell, or a surname a family shares. */
	gender: Gender | null;
	/** Times seen capitalized inside a sentence. */
	count: number;
}

export interface BookNames {
	/** The most frequent first. */
	people: Person[];
	/** Places (towns, houses, countries), the most frequent first. */
	places: string[];
	/** Other words the book capitalizes as names are, unknown to the tagger ("Cossacks", "Uhlans"): neither, or not told. */
	others: string[];
}

/** Titles after which a surname stands ("Mr. Darcy"); the gender each says. */
const SURNAME_TITLES = new Map<string, Gender | null>([
	['mr', 'male'],
	['mrs', 'female'],
	['ms', 'female'],
	['messrs', 'male'],
	['monsieur', 'male'],
	['madame', 'female'],
	['mme', 'female'],
	['dr', null],
]);
/** Titles before a given name or a surname ("Miss Elizabeth", "Miss Bennet", "Prince Andrew", "Count Rostóv"); the gender each says. */
const OTHER_TITLES = new Map<string, Gender | null>([
	...(
		'sir lord prince count duke baron king emperor general colonel captain major lieutenant uncle father ' +
		'brother master'
	)
		.split(' ')
		.map((t): [string, Gender] => [t, 'male']),
	...(
		'miss madam mademoiselle mlle lady princess countess duchess baroness queen empress aunt mother sister ' +
		'mistress'
	)
		.split(' ')
		.map((t): [string, Gender] => [t, 'female']),
	...'saint st doctor professor'.split(' ').map((t): [string, null] => [t, null]),
]);
/** Titles that stand before places as often as before people ("St. Petersburg"). */
const PLACE_TITLES = new Set(['saint', 'st']);
/** Words that stand before a name and are no name themselves; they stay as they are ("Mr. Darcy" becomes "Mr. Victor"). */
const TITLES = new Set([...SURNAME_TITLES.keys(), ...OTHER_TITLES.keys()]);

/** Capitalized everywhere, named by the calendar and by headings, and no character. */
const CALENDAR_AND_HEADINGS = new Set(
	(
		'monday tuesday wednesday thursday friday saturday sunday january february march april may june ' +
		'july august september october november december chapter volume book part letter section canto ' +
		'prologue epilogue preface contents appendix mont mount lake cape christmas easter michaelmas whitsuntide lent ' +
		// Forms of address, capitalized as names are ("his Majesty", "Mamma").
		'majesty highness excellency lordship ladyship honour mamma papa sire heaven providence'
	).split(' '),
);

/** Words before a place, seldom before a person: "in Geneva", "at Longbourn", "Mont Blanc". */
const PLACE_WORDS = new Set(['in', 'at', 'from', 'into', 'near', 'through', 'mont', 'mount', 'lake', 'cape']);
/** A person's name takes no article: "the French", "the Cossacks", "the Tsar" are none. */
const ARTICLE = 'the';
/** A word standing after one of them in more than this share of its uses names a place (or, after "the", a people). */
const PLACE_SHARE = 0.1;
/** A word seen fewer times is left out: too rare for the tagger's samples to tell, and for a scene to need. */
const MIN_COUNT = 3;
/** A name is capitalized where it stands inside a sentence at least this share of the times it is seen. */
const CAPITALIZED_SHARE = 0.9;
/** A word after a surname title this share of its uses is a surname, whatever the tagger says ("Mr. Wickham"). */
const TITLED_SHARE = 0.15;

/** The tagger's tags that make a word a person, a place, or a word of another kind capitalized (God, Heaven). */
const PERSON_TAGS = new Set(['Person', 'FirstName', 'LastName', 'MaleName', 'FemaleName']);
const PLACE_TAGS = new Set(['Place', 'City', 'Country', 'Region']);
const OTHER_TAGS = new Set([
	'Actor',
	'Date',
	'WeekDay',
	'Month',
	'Holiday',
	'Expression',
	'Pronoun',
	'Organization',
	'Demonym',
	'Plural',
	'Uncountable',
]);

const HE = new Set(['he', 'him', 'his', 'himself']);
const SHE = new Set(['she', 'her', 'hers', 'herself']);

/**
 * The form a name is matched by: a summary may leave out the accents its book writes ("Natasha" for
 * "Natásha"). Case counts: "Will" is a name where "will" is not.
 */
const nameKey = (word: string): string => withoutAccents(word);

/** "Darcy's" and "Darcys'" are Darcy's. */
function withoutPossessive(word: string): string {
	return word.replace(/['’]s?$/u, '');
}

interface Seen {
	capitalized: number;
	lowercase: number;
	/** After a preposition of place ("at"), after "the". */
	placeLike: number;
	afterThe: number;
	spellings: Map<string, number>;
	/** Where it stands capitalized, for the tagger's samples. */
	at: number[];
	/** After a surname title ("Mr."), after any title of a person ("Princess"), and the gender the titles say. */
	titled: number;
	titledAny: number;
	male: number;
	female: number;
}

/** Capitalized words of `text` that may be names, counted (the scan needs no list of names). */
function candidates(text: string): { key: string; name: string; seen: Seen }[] {
	const counts = new Map<string, Seen>();
	let previous = { key: '', end: 0 };
	for (const { start, end, inside } of sentenceWords(text)) {
		const word = text.slice(start, end);
		const bare = withoutPossessive(word);
		const key = nameKey(bare.toLowerCase());
		const afterTitle = TITLES.has(previous.key) && /^\.?[ \t]+$/u.test(text.slice(previous.end, start));
		let c = counts.get(key);
		if (!c) {
			c = {
				capitalized: 0,
				lowercase: 0,
				placeLike: 0,
				afterThe: 0,
				spellings: new Map(),
				at: [],
				titled: 0,
				titledAny: 0,
				male: 0,
				female: 0,
			};
			counts.set(key, c);
		}
		if (!isCapitalized(word)) c.lowercase++;
		else if (inside || afterTitle) {
			c.capitalized++;
			c.at.push(start);
			if (bare === word && PLACE_WORDS.has(previous.key)) c.placeLike++;
			if (previous.key === ARTICLE) c.afterThe++;
			c.spellings.set(bare, (c.spellings.get(bare) ?? 0) + 1);
			if (afterTitle) {
				const gender = SURNAME_TITLES.get(previous.key) ?? OTHER_TITLES.get(previous.key) ?? null;
				if (SURNAME_TITLES.has(previous.key)) c.titled++;
				if (!PLACE_TITLES.has(previous.key)) c.titledAny++;
				if (gender === 'male') c.male++;
				if (gender === 'female') c.female++;
			}
		}
		previous = { key, end };
	}
	const out: { key: string; name: string; seen: Seen }[] = [];
	for (const [key, c] of counts) {
		if (c.capitalized < MIN_COUNT || c.capitalized < CAPITALIZED_SHARE * (c.capitalized + c.lowercase))
			continue;
		if (
			key.length < 2 ||
			TITLES.has(key) ||
			CALENDAR_AND_HEADINGS.has(key) ||
			contentTokens(key).length === 0
		)
			continue;
		const [name] = [...c.spellings].reduce((a, b) => (b[1] > a[1] ? b : a));
		// A word in capitals throughout ("CHAPTER", "THE END") is typography, not a name.
		if (name.length > 1 && name === name.toUpperCase()) continue;
		out.push({ key, name, seen: c });
	}
	// A family's plural ("the Bennets", "the Lucases") is its name's, and substituted with it.
	const keys = new Set(out.map((c) => c.key));
	const plural = (key: string) => keys.has(key.replace(/e?s$/u, '')) && /s$/u.test(key);
	out.splice(0, out.length, ...out.filter((c) => !plural(c.key)));
	out.sort(
		(a, b) => b.seen.capitalized - a.seen.capitalized || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
	);
	return out.slice(0, CANDIDATES);
}

interface Votes {
	person: number;
	/** Beside another name: "Márya Dmítrievna". */
	pair: number;
	place: number;
	other: number;
	first: number;
	last: number;
	male: number;
	female: number;
}

/** A word of the tagger's reading: its text, its tags, and where it stands in what was read. */
interface Tagged {
	text: string;
	tags: ReadonlySet<string>;
	at: number;
}

/**
 * The tagger's reading of `windows` (stretches of the book), read as one text with a blank line
 * between them: one call, as the tagger's cost is by the characters read. Each sentence is its
 * words with where each stands in that text.
 */
function tagWindows(windows: readonly string[]): { sentences: Tagged[][]; starts: number[] } {
	const starts: number[] = [];
	let length = 0;
	for (const w of windows) {
		starts.push(length);
		length += w.length + 2;
	}
	const doc = nlp(windows.join('\n\n')).docs as {
		text: string;
		pre: string;
		post: string;
		tags: Set<string>;
	}[][];
	let at = 0;
	const sentences = doc.map((terms) =>
		terms.map((t) => {
			at += t.pre.length;
			const word = { text: t.text, tags: t.tags, at };
			at += t.text.length + t.post.length;
			return word;
		}),
	);
	return { sentences, starts };
}

const bareKey = (text: string | undefined) => (text ? nameKey(withoutPossessive(text).toLowerCase()) : '');

/**
 * What the tagger and the words around it say of each candidate, read in `SAMPLES` stretches of
 * the book spread over where it stands.
 */
function votesOf(text: string, found: readonly { key: string; seen: Seen }[]): Votes[] {
	const known = new Set(found.map((c) => c.key));
	const windows: string[] = [];
	const targets: { candidate: number; offset: number }[] = [];
	found.forEach(({ seen }, candidate) => {
		const picks = Math.min(SAMPLES, seen.at.length);
		for (let k = 0; k < picks; k++) {
			const offset = seen.at[Math.floor((k * seen.at.length) / picks)]!;
			const from = Math.max(0, offset - WINDOW);
			const to = Math.min(text.length, offset + WINDOW);
			targets.push({ candidate, offset: offset - from });
			// The blank line that joins windows would end a paragraph inside one: none kept.
			windows.push(text.slice(from, to).replace(/\s+/gu, (w) => ' '.repeat(w.length)));
		}
	});
	const { sentences, starts } = tagWindows(windows);
	const where = new Map<number, { sentence: Tagged[]; i: number }>();
	for (const sentence of sentences) sentence.forEach((word, i) => where.set(word.at, { sentence, i }));
	const votes = found.map((): Votes => ({
		person: 0,
		pair: 0,
		place: 0,
		other: 0,
		first: 0,
		last: 0,
		male: 0,
		female: 0,
	}));
	targets.forEach(({ candidate, offset }, w) => {
		const hit = where.get(starts[w]! + offset);
		if (!hit || bareKey(hit.sentence[hit.i]!.text) !== found[candidate]!.key) return;
		const { sentence, i } = hit;
		const v = votes[candidate]!;
		const tags = [...sentence[i]!.tags];
		if (tags.some((t) => PERSON_TAGS.has(t))) v.person++;
		else if (tags.some((t) => PLACE_TAGS.has(t))) v.place++;
		else if (tags.some((t) => OTHER_TAGS.has(t))) v.other++;
		if (tags.some((t) => t === 'FirstName' || t === 'MaleName' || t === 'FemaleName')) v.first++;
		if (tags.includes('LastName')) v.last++;
		if (tags.includes('MaleName')) v.male++;
		if (tags.includes('FemaleName')) v.female++;
		// Two names in a row are a given name and a surname ("Elizabeth Bennet").
		if (known.has(bareKey(sentence[i + 1]?.text)) && /^[\p{L}'’]+$/u.test(sentence[i]!.text)) {
			v.first++;
			v.pair++;
		}
		const before = bareKey(sentence[i - 1]?.text);
		if (known.has(before) && !TITLES.has(before)) {
			v.last++;
			v.pair++;
		}
		// The first personal pronoun after a name in its sentence is mostly its own.
		const pronoun = sentence
			.slice(i + 1, i + 12)
			.map((t) => t.text.toLowerCase())
			.find((t) => HE.has(t) || SHE.has(t));
		if (pronoun && HE.has(pronoun)) v.male++;
		if (pronoun && SHE.has(pronoun)) v.female++;
	});
	return votes;
}

const genderOf = (male: number, female: number): Gender | null =>
	male >= 2 && male > 2 * female ? 'male' : female >= 2 && female > 2 * male ? 'female' : null;

/**
 * The people and places of `text` (a book), the most frequent first. A person is a capitalized
 * word (almost never written lowercase, no title, weekday, month or heading word) that follows a
 * surname title, or that the tagger takes for a person more often than for a place, or, unknown to
 * it, seldom stands after "the/in/at"; the tagger's "God" and "Heaven" are neither. A surname is
 * one seen after "Mr."/"Mrs." or tagged so, or standing after a given name; a gender is said by
 * the titles before it, the tagger's lexicon and the pronoun that follows it, and left null when
 * they disagree (a surname a family shares).
 */
export function bookNames(text: string, limits: { people?: number; places?: number } = {}): BookNames {
	const found = candidates(text);
	const votes = votesOf(text, found);
	const people: Person[] = [];
	const places: string[] = [];
	const others: string[] = [];
	for (const [c, { name, seen }] of found.entries()) {
		const v = votes[c]!;
		const titled = seen.titled >= TITLED_SHARE * seen.capitalized;
		const personTitled = seen.titledAny >= TITLED_SHARE * seen.capitalized;
		const placeLike = seen.placeLike > PLACE_SHARE * seen.capitalized;
		const articled = seen.afterThe > PLACE_SHARE * seen.capitalized;
		const picks = Math.min(SAMPLES, seen.at.length);
		const tagged = v.person + v.place + v.other;
		// The tagger's lexicon of given names outweighs a few "at Anna Pávlovna's"; an unknown word
		// is a person only where nothing says place or people.
		const isPerson =
			personTitled ||
			2 * v.pair > picks ||
			(v.person > v.place && v.person >= v.other && (2 * v.person > picks || !(placeLike || articled))) ||
			(tagged === 0 && !placeLike && !articled);
		if (isPerson) {
			const role: Role = titled || v.last > v.first ? 'last' : 'first';
			people.push({
				name,
				role,
				gender: genderOf(seen.male + v.male, seen.female + v.female),
				count: seen.capitalized,
			});
		} else if (v.place > v.other || (placeLike && 2 * v.other <= picks)) places.push(name);
		// What the tagger knows as another kind ("Russian", "Christmas") gives no scene away; an
		// unknown word may be a name it missed.
		else if (v.other === 0) others.push(name);
	}
	const peopleKept = limits.people ?? PEOPLE_LIMIT;
	const placesKept = limits.places ?? PLACE_LIMIT;
	return {
		people: people.slice(0, peopleKept),
		places: places.slice(0, placesKept),
		// Those past the lists too: a scene naming one is not used rather than give itself away.
		others: [...others, ...people.slice(peopleKept).map((p) => p.name), ...places.slice(placesKept)],
	};
}

/** A place name put where another book's place stood when this book names none. */
export const NEUTRAL_PLACE = 'the town';

/**
 * Names of another book (`from`) to names of this one (`to`): each person, most frequent first,
 * becomes the most frequent of this book's people of the same role (given name or surname) and
 * gender not taken yet; then one of the same role and gender taken already, then one of the same
 * role; places become this book's places rank for rank (over again when it names fewer), or
 * `NEUTRAL_PLACE`. Every part of a multi-word name is its own entry ("Elizabeth", "Bennet").
 */
export function nameSubstitution(from: BookNames, to: BookNames): Map<string, string> {
	const map = new Map<string, string>();
	const used = new Set<string>();
	for (const person of from.people) {
		if (map.has(person.name)) continue;
		const sameRole = to.people.filter((p) => p.role === person.role);
		const pool = sameRole.length > 0 ? sameRole : to.people;
		const sameGender = pool.filter((p) => p.gender === person.gender);
		const pick =
			sameGender.find((p) => !used.has(p.name)) ??
			pool.find(
				(p) => !used.has(p.name) && (person.gender === null || p.gender !== otherGender(person.gender)),
			) ??
			sameGender[used.size % Math.max(1, sameGender.length)] ??
			pool[used.size % Math.max(1, pool.length)];
		if (!pick) continue;
		used.add(pick.name);
		map.set(person.name, pick.name);
	}
	from.places.forEach((place, i) => {
		if (!map.has(place))
			map.set(place, to.places.length > 0 ? to.places[i % to.places.length]! : NEUTRAL_PLACE);
	});
	return map;
}

const otherGender = (g: Gender): Gender => (g === 'male' ? 'female' : 'male');

/**
 * This book's people and places renamed at random (NarrativeXL, A.2, against a reader who knows
 * the book): each given name becomes a given name of the same gender (one the lexicon gives
 * either gender where the book does not tell), each surname a surname, each place a city, drawn
 * with `seed` from the tagger's lexicon; none is a name of the book already, and no two names get
 * the same one. Places too, though A.2 speaks of characters: "Ingolstadt" gives Frankenstein away
 * as surely as "Victor" does.
 */
export function randomNames(names: BookNames, seed: number): Map<string, string> {
	const random = seededRandom(seed);
	const lexicon = lexiconNames();
	const used = new Set([...allNames(names), ...names.others].map((n) => nameKey(n.toLowerCase())));
	const pools = new Map<LexiconKind, string[]>();
	const draw = (kinds: readonly LexiconKind[]): string | undefined => {
		for (const kind of kinds) {
			let pool = pools.get(kind);
			if (!pool) {
				pool = shuffle(
					lexicon.filter(([, tag]) => tag === kind).map(([w]) => w),
					random,
				);
				pools.set(kind, pool);
			}
			let word = pool.pop();
			while (word !== undefined && used.has(word)) word = pool.pop();
			if (word !== undefined) {
				used.add(word);
				return word.replace(/^\p{L}/u, (c) => c.toUpperCase());
			}
		}
		return undefined;
	};
	const map = new Map<string, string>();
	for (const person of names.people) {
		if (map.has(person.name)) continue;
		const kinds: LexiconKind[] =
			person.role === 'last'
				? ['LastName']
				: person.gender === 'female'
					? ['FemaleName']
					: person.gender === 'male'
						? ['MaleName']
						: ['FirstName', 'MaleName', 'FemaleName'];
		const word = draw(kinds);
		if (word !== undefined) map.set(person.name, word);
	}
	for (const place of names.places) {
		const word = map.has(place) ? undefined : draw(['City']);
		if (word !== undefined) map.set(place, word);
	}
	return map;
}

/** The tagger's lexicon entries a random name is drawn from. */
type LexiconKind = 'MaleName' | 'FemaleName' | 'FirstName' | 'LastName' | 'City';
const LEXICON_KINDS = new Set<string>(['MaleName', 'FemaleName', 'FirstName', 'LastName', 'City']);

/** The tagger's given names, surnames and cities, one word each, in its lexicon's order. */
function lexiconNames(): [string, LexiconKind][] {
	const lexicon = (nlp.model() as { one: { lexicon: Record<string, string> } }).one.lexicon;
	return Object.entries(lexicon).filter(
		(entry): entry is [string, LexiconKind] => LEXICON_KINDS.has(entry[1]) && /^\p{L}+$/u.test(entry[0]),
	);
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
	if (family !== undefined) return { name: family, ending: 's' };
	const families = key.endsWith('es') ? byKey.get(key.slice(0, -2)) : undefined;
	return families === undefined ? undefined : { name: families, ending: 'es' };
}

/**
 * `text` with each whole-word name of `map` replaced by its value, in one pass; a possessive's "'s"
 * and a family's plural "s" stay.
 */
export function substituteNames(text: string, map: ReadonlyMap<string, string>): string {
	if (map.size === 0) return text;
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

/** Every name of a book's lists: its people's and its places'. */
export const allNames = (names: BookNames): string[] => [...names.people.map((p) => p.name), ...names.places];

/**
 * Another book's scene as a distractor for this book, its people and places replaced through
 * `map` (see `nameSubstitution`); null when a word its book capitalizes as a name, and this book
 * never does, is left after it: no name of this book stood for it, and it would give the scene
 * away ("Netherfield" where the tagger could not tell a house from a person, "Uhlans").
 */
export function otherBookScene(
	text: string,
	other: BookNames,
	self: BookNames,
	map: ReadonlyMap<string, string>,
): string | null {
	const substituted = substituteNames(text, map);
	const ours = new Set([...allNames(self), ...self.others].map((n) => nameKey(n)));
	const replaced = new Set([...map.values()].map((n) => nameKey(n)));
	const left = namesIn(
		substituted,
		[...allNames(other), ...other.others].filter((n) => !replaced.has(nameKey(n)) && !ours.has(nameKey(n))),
	);
	return left.length > 0 ? null : substituted;
}
