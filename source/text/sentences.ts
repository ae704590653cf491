import sbd from 'sbd';

/** A sentence as a character range of the text it came from. */
export interface Span {
	start: number;
	end: number;
}

// sbd's English abbreviations (sbd 1.0.19, lib/Match.js; it matches them case-sensitively and
// never ends a sentence after one), without "no" ("She says no. He leaves." is two sentences; "No. 5"
// is kept whole by sbd's number rule anyway), plus titles sbd lacks ("Mt. Fuji", "Fr. Brown").
const ABBREVIATIONS = [
	'al', 'adj', 'assn', 'Ave', 'BSc', 'MSc', 'Cell', 'Ch', 'Co', 'cc', 'Corp', 'Dem', 'Dept', 'ed', 'eg', 'Eq',
	'Eqs', 'est', 'etc', 'Ex', 'ext', 'Fig', 'fig', 'Figs', 'figs', 'i.e', 'ie', 'Inc', 'inc', 'Jan', 'Feb', 'Mar',
	'Apr', 'Jun', 'Jul', 'Aug', 'Sep', 'Sept', 'Oct', 'Nov', 'Dec', 'jr', 'mi', 'Miss', 'Mrs', 'Mr', 'Ms', 'Mol',
	'mt', 'mts', 'Nos', 'PhD', 'MD', 'BA', 'MA', 'MM', 'pl', 'pop', 'pp', 'Prof', 'Dr', 'pt', 'Ref', 'Refs', 'Rep',
	'repr', 'rev', 'Sec', 'Secs', 'Sgt', 'Col', 'Gen', 'Sen', 'Gov', 'Lt', 'Maj', 'Capt', 'St', 'Sr', 'sr', 'Jr',
	'Rev', 'Sun', 'Mon', 'Tu', 'Tue', 'Tues', 'Wed', 'Th', 'Thu', 'Thur', 'Thurs', 'Fri', 'Sat', 'trans', 'Univ',
	'Viz', 'Vol', 'vs', 'v',
	'Mt', 'Mts', 'Ft', 'Mme', 'Mmes', 'Mlle', 'Messrs', 'Mx', 'Fr', 'Hon', 'Pres', 'Supt', 'Insp', 'Det', 'Cpl',
	'Pvt', 'Adm', 'Cmdr', 'Cdr', 'Brig', 'Lieut', 'Sra', 'Srta', 'Sens', 'Reps', 'Amb',
];
const KNOWN = new Set(ABBREVIATIONS);
// Line breaks are handled here, so sbd's newline option (which also rewrites rules such as "----")
// stays off.
const SBD = { newline_boundaries: false, preserve_whitespace: false, sanitize: false, abbreviations: ABBREVIATIONS };
// Abbreviations that close a phrase rather than open a name ("King Jr.", "Acme Inc.", "etc."), and
// ones that are also names or words in stories ("the Sun.", "betraying Mar."): before a capital
// they end the sentence; before a lower-case word they still do not.
const ENDERS = new Set([
	'Jr', 'jr', 'Sr', 'sr', 'PhD', 'MD', 'BA', 'MA', 'MM', 'BSc', 'MSc', 'Inc', 'inc', 'Corp', 'Co', 'etc',
	'Jan', 'Mar', 'Sun', 'Mon', 'Wed', 'Sat',
]);

const OPENERS = `"'“‘«([`;
// Closing quotes and brackets that may follow a sentence's final mark ("Stop!" / 'Closed.' / (sic.)).
const CLOSERS = `"'”’»)\\]`;
const ENDS_INSIDE_CLOSER = new RegExp(`^(.*?)([.?!…]+)([${CLOSERS}]+)$`, 'u');
// What a new sentence starts with: a capital or a digit, possibly after opening quotes or brackets.
const STARTER = new RegExp(`^[${OPENERS}]*[\\p{Lu}\\d]`, 'u');
const CAPITAL = new RegExp(`^[${OPENERS}]*\\p{Lu}`, 'u');
// A final mark glued to the next sentence ("end.The"): split there so sbd sees two words.
const GLUED = new RegExp(`(?<=\\p{Ll}[.?!]+[${CLOSERS}]*)(?=\\p{Lu}\\p{Ll})`, 'gu');

// Capitalised words that begin sentences far more often than they follow an initial inside a name:
// after "J.B." or "D.C." they mean a new sentence ("... feelings for J.B. She speaks"), while any
// other capital is read as the rest of a name ("D.C. Stephenson", "U.S. Army").
const STARTS = new Set([
	'After', 'Afterward', 'All', 'Also', 'Although', 'An', 'And', 'Another', 'As', 'At', 'Back', 'Because',
	'Before', 'Both', 'But', 'By', 'Despite', 'During', 'Each', 'Even', 'Eventually', 'Every', 'Finally', 'For',
	'From', 'He', 'Her', 'Here', 'His', 'How', 'However', 'If', 'In', 'It', 'Its', 'Later', 'Meanwhile', 'Many',
	'Most', 'My', 'No', 'Not', 'Now', 'On', 'Once', 'Or', 'Our', 'Over', 'She', 'Since', 'So', 'Some', 'Soon',
	'Still', 'That', 'The', 'Their', 'Then', 'There', 'These', 'They', 'This', 'Those', 'Though', 'Through',
	'Throughout', 'To', 'Together', 'Ultimately', 'Upon', 'We', 'What', 'When', 'Where', 'While', 'Who', 'Why',
	'With', 'Without', 'Yet', 'You',
]);

const LEADING_OPENERS = new RegExp(`^[${OPENERS}]+`, 'u');
const BARE = new RegExp(`^[${OPENERS}]+|[${CLOSERS}.,;:!?]+$`, 'gu');

/**
 * How sbd should see a word, so that its decision matches a reader's: `word` is what sbd gets (one
 * word for each of ours; a sentence's text is always taken from the original) and `ends` says the
 * sentence ends after it whatever sbd thinks. Replacing a dot by "_" removes a boundary.
 * - sbd only looks at a word's last character for "?" and "!" and strips only a double quote before
 *   looking for ".", so a sentence ending inside quotes or brackets ran on. It ends there when the
 *   next word starts a sentence; otherwise the mark is hidden from sbd (`"Stop." she said`).
 * - Before a capital, sbd guesses from the next few words whether a short capitalised word
 *   ("Vera.") is an abbreviation, and it splits after initials ("J.R.R. Tolkien"). Here a word or a
 *   number ends the sentence unless it is a known abbreviation, and initials end it only before a
 *   common sentence opener.
 * - A mark inside a word cannot split it (sbd would cut "Ph.D" and drop the dot, breaking the
 *   one-word-in, one-word-out alignment).
 */
function forSbd(word: string, next: string | undefined): { word: string; ends: boolean } {
	let ends = false;
	const quoted = ENDS_INSIDE_CLOSER.exec(word);
	if (quoted && next !== undefined) {
		const [, body, , closer] = quoted as unknown as [string, string, string, string];
		if (STARTER.test(next)) ends = true;
		else word = `${body}${closer}`;
	} else if (word.endsWith('.') && !word.endsWith('..') && next !== undefined && CAPITAL.test(next)) {
		const stem = word.slice(0, -1).replace(LEADING_OPENERS, '');
		if (/^(\p{Lu}\.)*\p{Lu}$/u.test(stem)) {
			if (STARTS.has(next.replace(BARE, ''))) ends = true;
			else word = `${word.slice(0, -1)}_`;
		} else if (ENDERS.has(stem) || (/^(\p{L}{2,}|\p{N}+)$/u.test(stem) && !KNOWN.has(stem))) ends = true;
	}
	if (!/[.?!]$/u.test(word)) word = word.replace(/[.?!](?=\p{L})/gu, '_');
	return { word, ends };
}

/**
 * Sentence ranges of `text`, in order. Every line break is a boundary; within a line, sbd decides
 * (as adjusted by `forSbd`). Whitespace between sentences belongs to no span. Ranges are found by
 * aligning sbd's words with the text's own words, so what sbd normalises never shifts an offset.
 */
export function sentenceSpans(text: string): Span[] {
	const spans: Span[] = [];
	const lineRe = /[^\n]+/gu;
	for (let line = lineRe.exec(text); line; line = lineRe.exec(text)) {
		const words: Span[] = [];
		const wordRe = /\S+/gu;
		for (let w = wordRe.exec(line[0]); w; w = wordRe.exec(line[0])) {
			const at = line.index + w.index;
			let from = 0;
			for (const cut of w[0].matchAll(GLUED)) {
				words.push({ start: at + from, end: at + cut.index });
				from = cut.index;
			}
			words.push({ start: at + from, end: at + w[0].length });
		}
		if (words.length === 0) continue;
		const raw = words.map((w) => text.slice(w.start, w.end));
		const seen = raw.map((w, i) => forSbd(w, raw[i + 1]));
		// Sentence ends as word indices (exclusive): sbd's, then the forced ones.
		const ends = new Set<number>();
		let at = 0;
		for (const sentence of sbd.sentences(seen.map((s) => s.word).join(' '), SBD)) {
			at += sentence.split(/\s+/u).filter(Boolean).length;
			ends.add(Math.min(at, words.length));
		}
		seen.forEach((s, i) => s.ends && ends.add(i + 1));
		ends.add(words.length);
		let first = 0;
		for (const end of [...ends].sort((x, y) => x - y)) {
			if (end <= first) continue;
			spans.push({ start: words[first]!.start, end: words[end - 1]!.end });
			first = end;
		}
	}
	return spans;
}

export function splitSentences(text: string): string[] {
	return sentenceSpans(text).map((s) => text.slice(s.start, s.end));
}
