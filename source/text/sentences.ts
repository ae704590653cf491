import sbd from 'sbd';

/** A sentence as a character range of the text it came from. */
export interface Span {
	start: number;
	end: number;
}

// sbd's own English list already knows honorifics (Mr, Mrs, Dr, St) and treats initials as
// non-final; line breaks are handled here, so sbd's newline option (which also rewrites rules such
// as "----") stays off.
const OPTIONS = { newline_boundaries: false, preserve_whitespace: false, sanitize: false };

// Titles that precede a name and that sbd's list lacks: after them a capital letter starts the name,
// not a new sentence ("Mt. Kenya", "Fr. Brown"). sbd matches its list case-sensitively; so do we.
const TITLES = new Set([
	'Mt', 'Mts', 'Ft', 'Mme', 'Mmes', 'Mlle', 'Messrs', 'Mx', 'Fr', 'Hon', 'Pres', 'Supt', 'Insp', 'Det',
	'Cpl', 'Pvt', 'Adm', 'Cmdr', 'Cdr', 'Brig', 'Lieut', 'Sra', 'Srta', 'Sens', 'Reps', 'Amb', 'Dir',
]);

// Closing quotes and brackets that may follow a sentence's final mark ("Stop!" / 'Closed.' / (sic.)).
const CLOSERS = `"'”’»)\\]`;
const ENDS_INSIDE_CLOSER = new RegExp(`^(.*?)([.?!…]+)([${CLOSERS}]+)$`, 'u');
// What a new sentence starts with: a capital or a digit, possibly after opening quotes or brackets.
const STARTER = /^["'“‘«([]*[\p{Lu}\d]/u;
// A final mark glued to the next sentence ("end.The"): split there so sbd sees two words.
const GLUED = new RegExp(`(?<=\\p{Ll}[.?!]+[${CLOSERS}]*)(?=\\p{Lu}\\p{Ll})`, 'gu');

/**
 * The word as sbd should see it, so that sbd's decision matches a reader's. sbd only looks at a
 * word's last character for "?" and "!" and strips only a double quote before looking for ".", so
 * a sentence ending inside quotes or brackets would run on; we move the mark outside when the next
 * word starts a sentence, and drop it when the next word does not (`"Stop!" she said`). A title
 * loses its dot, and a mark inside a word loses its power to split it (sbd would cut "Ph.D" and
 * drop the dot, which breaks the one-word-in, one-word-out alignment below).
 */
function forSbd(word: string, next: string | undefined): string {
	const quoted = ENDS_INSIDE_CLOSER.exec(word);
	if (quoted && next !== undefined) {
		const [, body, mark, closer] = quoted as unknown as [string, string, string, string];
		word = STARTER.test(next) ? `${body}${closer}${mark}` : `${body}${closer}`;
	}
	if (word.endsWith('.') && TITLES.has(word.slice(0, -1).replace(/^["'“‘«([]+/u, ''))) word = `${word.slice(0, -1)}_`;
	// Only a word that ends in "." (or is a boundary) keeps inner marks: sbd never splits those.
	if (!/[.?!]$/u.test(word)) word = word.replace(/[.?!](?=\p{L})/gu, '_');
	return word;
}

/**
 * Sentence ranges of `text`, in order. Every line break is a boundary; within a line, sbd decides.
 * Whitespace between sentences belongs to no span. Ranges are found by aligning sbd's words with
 * the text's own words (sbd gets exactly one word per word of ours), so what sbd or `forSbd`
 * normalises never shifts an offset.
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
		const input = raw.map((w, i) => forSbd(w, raw[i + 1])).join(' ');
		let at = 0;
		for (const sentence of sbd.sentences(input, OPTIONS)) {
			const n = sentence.split(/\s+/u).filter(Boolean).length;
			if (n === 0) continue;
			const first = words[at];
			const last = words[Math.min(at + n, words.length) - 1];
			if (!first || !last) break;
			spans.push({ start: first.start, end: last.end });
			at += n;
		}
		// Whatever sbd did not account for stays in the text as a last sentence of the line.
		if (at < words.length) spans.push({ start: words[at]!.start, end: words[words.length - 1]!.end });
	}
	return spans;
}

export function splitSentences(text: string): string[] {
	return sentenceSpans(text).map((s) => text.slice(s.start, s.end));
}
