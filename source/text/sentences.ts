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

/**
 * Sentence ranges of `text`, in order. Every line break is a boundary; within a line, sbd decides.
 * Whitespace between sentences belongs to no span. Ranges are found by aligning sbd's words with
 * the text's own words, so what sbd normalises never shifts an offset.
 */
export function sentenceSpans(text: string): Span[] {
	const spans: Span[] = [];
	const lineRe = /[^\n]+/gu;
	for (let line = lineRe.exec(text); line; line = lineRe.exec(text)) {
		const words: Span[] = [];
		const wordRe = /\S+/gu;
		for (let w = wordRe.exec(line[0]); w; w = wordRe.exec(line[0])) {
			words.push({ start: line.index + w.index, end: line.index + w.index + w[0].length });
		}
		if (words.length === 0) continue;
		let at = 0;
		for (const sentence of sbd.sentences(line[0], OPTIONS)) {
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
