import { lexicon } from './lexicon.ts';
import { runsOf } from './runs.ts';

/** A sentence as a character range of the text it came from. */
export interface Span {
	start: number;
	end: number;
}

/*
 * Sentence boundaries the way NLTK's `sent_tokenize` finds them, because BooookScore is defined on
 * NLTK sentences: the authors annotate one call per NLTK sentence and divide by their count. NLTK
 * runs Punkt (Kiss & Strunk 2006) with a model trained on news text; that model is not shipped
 * here, so its three learned tables are replaced by general knowledge:
 * - abbreviations: the common English ones below (titles, months, Latin and business forms);
 * - orthographic evidence (is a capitalised word normally lower case, and not a name?): the en_US
 *   Hunspell dictionary (`lexicon.ts`);
 * - frequent sentence starters: any common word, by the same evidence.
 * Punkt's decision, per word ending in a full stop, question or exclamation mark:
 * - "?" and "!" always end the sentence; so does a full stop after an ordinary word, whatever
 *   follows ("Vera. Julia", "said no. he");
 * - after an abbreviation or an ellipsis, only a capitalised common word starts a new sentence
 *   ("etc. The" splits, "Dr. Edna" and "etc. and" do not);
 * - after an initial or a number, a lower-case word continues the sentence, and so does a
 *   capitalised word that is not a common word ("J. Tolkien", but "J. Craft" splits as in NLTK).
 * Closing quotes and brackets after the mark belong to the sentence that ends. Typographic quotes
 * count as quotes. One difference from NLTK unless told otherwise (`lineBreaks`): every line break is
 * a boundary, as a line of a book booook reads is a paragraph or a heading. A summary that
 * BooookScore counts is split as NLTK splits it, a line break being only whitespace.
 */

export interface SplitOptions {
	/** Whether a line break ends a sentence (default true); false: as NLTK's sent_tokenize, never by itself. */
	lineBreaks?: boolean;
}

const ABBREVIATIONS = new Set([
	'no',
	'nos',
	'mr',
	'mrs',
	'ms',
	'mx',
	'messrs',
	'mme',
	'mlle',
	'dr',
	'drs',
	'prof',
	'rev',
	'fr',
	'sr',
	'jr',
	'st',
	'mt',
	'mts',
	'ft',
	'hon',
	'pres',
	'gov',
	'sen',
	'rep',
	'reps',
	'gen',
	'col',
	'lt',
	'maj',
	'capt',
	'sgt',
	'cpl',
	'pvt',
	'adm',
	'cmdr',
	'cdr',
	'brig',
	'lieut',
	'supt',
	'insp',
	'det',
	'amb',
	'sra',
	'srta',
	'jan',
	'feb',
	'mar',
	'apr',
	'jun',
	'jul',
	'aug',
	'sep',
	'sept',
	'oct',
	'nov',
	'dec',
	'mon',
	'tue',
	'tues',
	'wed',
	'thu',
	'thur',
	'thurs',
	'fri',
	'sat',
	'sun',
	'etc',
	'e.g',
	'i.e',
	'eg',
	'ie',
	'viz',
	'cf',
	'al',
	'vs',
	'approx',
	'ca',
	'inc',
	'co',
	'corp',
	'ltd',
	'llc',
	'dept',
	'univ',
	'assn',
	'bros',
	'ave',
	'blvd',
	'rd',
	'u.s',
	'u.k',
	'u.n',
	'e.u',
	'a.m',
	'p.m',
	'ph.d',
	'm.d',
	'b.a',
	'm.a',
	'd.c',
	'vol',
	'vols',
	'fig',
	'figs',
	'pp',
	'ch',
]);

// Punkt's "non-word" characters: after a mark they still leave a candidate boundary.
const CLOSERS = `"'”’»)\\]}`;
// Characters a word cannot start with: Punkt reads them as a token of their own.
const OPENERS = `"'“‘«(\\[{\`:;&#*@)}\\]\\-,`;
const TRAILING_CLOSERS = new RegExp(`[${CLOSERS}]+$`, 'u');
const LEADING_OPENERS = new RegExp(`^[${OPENERS}]+`, 'u');
const MARKS = /[.?!]$/u;
// "J." and "J.R.R.": Punkt knows single initials; runs of them behave the same way.
const INITIAL = /^(\p{L}\.)+$/u;
const NUMBER = /^-?[.,]?\d[\d,.-]*\.?$/u;
const ELLIPSIS = /\.\.$/u;

type Evidence = true | false | 'unknown';

/** The word itself: "Snow's," -> "Snow". */
function bareWord(word: string): string {
	// Cut before the first character that is not a letter, digit, apostrophe, full stop or hyphen,
	// then before the first apostrophe; a regex `.*$` overflowed the stack on a word of millions.
	const other = NOT_IN_WORD.exec(word)?.index ?? word.length;
	let bare = word.slice(0, other);
	const apostrophe = APOSTROPHE.exec(bare)?.index ?? bare.length;
	bare = bare.slice(0, apostrophe);
	let end = bare.length;
	while (end > 0 && bare.charCodeAt(end - 1) === 46) end--;
	return bare.slice(0, end);
}

const NOT_IN_WORD = /[^\p{L}\p{N}'’.-]/u;
const APOSTROPHE = /['’]/u;

/** Does `next` (the word after a possible boundary) start a sentence, by its spelling alone? */
function startsSentence(next: string): Evidence {
	if (LEADING_OPENERS.test(next)) return /^[;:,]/u.test(next) ? false : 'unknown';
	const word = bareWord(next);
	const first = word.charAt(0);
	if (first === '' || first.toLowerCase() === first.toUpperCase()) return 'unknown';
	if (first === first.toLowerCase()) return false;
	// One letter ("R." in "J. R. R. Tolkien") says nothing about sentences.
	if (word.length < 2) return 'unknown';
	const words = lexicon();
	return words.common(word) && !words.name(word) ? true : 'unknown';
}

/** How many sentences `text` has, counted without keeping them. */
export function sentenceCount(text: string): number {
	let count = 0;
	for (const _ of eachSentenceSpan(text)) count++;
	return count;
}

/** Whether the sentence ends after `word` (which ends in a mark, possibly before closing quotes). */
function endsAfter(word: string, next: string): boolean {
	const token = word.replace(TRAILING_CLOSERS, '').replace(LEADING_OPENERS, '');
	// A quotation or bracket that ends in a mark goes on when a lower-case word follows ("Stop!" she said).
	if (token.length < word.replace(LEADING_OPENERS, '').length && /^\p{Ll}/u.test(next)) return false;
	if (!token.endsWith('.') || token === '.') return true;
	if (ELLIPSIS.test(token)) return startsSentence(next) === true;
	const stem = token.slice(0, -1).toLowerCase();
	if (ABBREVIATIONS.has(stem) || ABBREVIATIONS.has(stem.split('-').pop()!))
		return startsSentence(next) === true;
	const initial = INITIAL.test(token);
	if (initial || NUMBER.test(token)) {
		const evidence = startsSentence(next);
		if (evidence === false) return false;
		// Punkt's rule for initials: a capitalised word that gives no evidence of a sentence start is
		// the rest of a name ("J. Bach", "J. R. R.", "J. A. Smith").
		if (initial && evidence === 'unknown' && /^\p{Lu}/u.test(next)) return false;
	}
	return true;
}

/**
 * Sentence ranges of `text`, in order. Whitespace between sentences belongs to no span, and every
 * line break is a boundary unless `lineBreaks` is false.
 */
export function sentenceSpans(text: string, opts: SplitOptions = {}): Span[] {
	return [...eachSentenceSpan(text, opts)];
}

/**
 * `sentenceSpans` one at a time, holding one word of look-ahead: the chunker cuts a paragraph of
 * millions of sentences without keeping them all.
 */
export function* eachSentenceSpan(text: string, { lineBreaks = true }: SplitOptions = {}): Generator<Span> {
	// The sentence being read starts at `first`; the word before the current one is [prevStart, prevEnd).
	let first = -1;
	let prevStart = -1;
	let prevEnd = -1;
	// Where the line of the word before ends (a word never holds a line break).
	let lineEnd = -1;
	// Words are runs of non-space, found in constant stack: a regex `\S+` overflowed the stack on a
	// word of ten million CJK characters.
	for (const [start, end] of runsOf(text, '\\S')) {
		const newLine = start > lineEnd;
		if (prevStart < 0) first = start;
		else if (
			(newLine && lineBreaks) ||
			endsSentence(text.slice(prevStart, prevEnd), text.slice(start, end))
		) {
			// The last word of a line ends its sentence.
			yield { start: first, end: prevEnd };
			first = start;
		}
		if (newLine) {
			lineEnd = text.indexOf('\n', end);
			if (lineEnd === -1) lineEnd = text.length;
		}
		prevStart = start;
		prevEnd = end;
	}
	if (prevStart >= 0) yield { start: first, end: prevEnd };
}

/** Whether the sentence ends after `word`, which `next` follows on the same line. */
function endsSentence(word: string, next: string): boolean {
	return MARKS.test(word.replace(TRAILING_CLOSERS, '')) && endsAfter(word, next);
}

export function splitSentences(text: string, opts: SplitOptions = {}): string[] {
	return sentenceSpans(text, opts).map((s) => text.slice(s.start, s.end));
}
