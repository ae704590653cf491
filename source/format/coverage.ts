import { chapterName } from './places.ts';
import { stripChart } from './strip.ts';
import { percent } from './percent.ts';
import { counted, formatInt } from './count.ts';
import { fixed } from './number.ts';

/** A chapter and how many sentences cite a passage in it (evidence/book-place.ts `ChapterCitations`). */
type ChapterCitations = Record<'index' | 'start' | 'end' | 'sentences', number> & { title: string };

/** A final summary's coverage placed in its book (app/evidence-session.ts `PlacedCoverage`, over evidence/coverage.ts `Coverage`). */
export interface PlacedCoverage {
	coverage: Record<'chunks' | 'sentences' | 'citing' | 'cited' | 'share', number> & {
		citations: readonly number[];
		meanPosition: number | null;
		parts: readonly (Record<'from' | 'to' | 'chunks' | 'cited', number> & { share: number | null })[];
		halves: Record<'first' | 'second' | 'ratio', number | null>;
		lean: 'less' | 'more' | 'even' | null;
	};
	chapters: readonly ChapterCitations[];
	weak: number;
}

/** Room the strip chart's labels take on its line: "start " and " end". */
export const LABELS = 'start  end'.length;

const round = (x: number | null) => (x === null ? null : Math.round(x * 10_000) / 10_000);

/** Coverage as JSON (shared with `report --json`): shares and positions in [0, 1], rounded to 4 places. */
function coverageJson({ coverage: c, chapters, weak }: PlacedCoverage, strip: string) {
	return {
		chunks: c.chunks,
		sentences: c.sentences,
		weakly_supported: weak,
		citing: c.citing,
		cited: c.cited,
		share: round(c.share),
		mean_position: round(c.meanPosition),
		halves: { first: round(c.halves.first), second: round(c.halves.second), ratio: round(c.halves.ratio) },
		lean: c.lean,
		parts: c.parts.map((p) => ({
			from: p.from,
			to: p.to,
			chunks: p.chunks,
			cited: p.cited,
			share: round(p.share),
		})),
		citations: c.citations,
		// Empty when the book has no headings.
		chapters: chapters.map((ch) => ({
			index: ch.index,
			title: ch.title,
			start: ch.start,
			end: ch.end,
			sentences: ch.sentences,
		})),
		strip,
	};
}

/** The coverage of a run's final summary as `report --json` shows it (as `coverage --json` piped), or null before there is one. */
export function finalCoverageJson(c: PlacedCoverage | null, width = 80) {
	return c && coverageJson(c, stripChart(c.coverage.citations, Math.max(1, width - LABELS)));
}

const pct = (x: number | null) => percent(x, 'n/a', 0);
const sentences = (n: number) => counted(n, 'sentence');

/** Chapters named on a coverage line before the rest are counted. */
const NAMED = 8;

/** Coverage as text lines (shared with `report`): the strip chart, shares, the lean, the tenths and the chapters. */
export function coverageLines({ coverage: c, chapters, weak }: PlacedCoverage, width: number): string[] {
	const chart = stripChart(c.citations, Math.max(1, width - LABELS));
	const { first, second, ratio } = c.halves;
	const lean =
		c.lean === null
			? ''
			: c.lean === 'less'
				? ': later parts cited less'
				: c.lean === 'more'
					? ': later parts cited more'
					: ': no clear lean';
	return [
		`start ${chart} end`,
		`cited: ${formatInt(c.cited)} of ${counted(c.chunks, 'chunk')} (${pct(c.share)}) by ${formatInt(c.citing)} of ${sentences(c.sentences)}`,
		`lean: first half ${pct(first)} of its chunks cited, second half ${pct(second)}${ratio === null ? '' : ` (second ÷ first ${fixed(ratio, 2)})`}${lean}`,
		`position: the sentences cite, on average, ${fixed(c.meanPosition, 2, 'n/a')} of the way in ` +
			`(0 start, 1 end; by sentence, so a chunk many cite weighs more: not a lean)`,
		`by tenth: ${c.parts.map((p) => pct(p.share)).join(' ')}`,
		...chapterLines(chapters),
		`weakly supported: ${weak} of ${sentences(c.sentences)} (their best passage holds less than a third of what they say: check them by hand)`,
		`chart: ${counted(chart.length, 'cell')} over ${counted(c.chunks, 'chunk')}; in a cell's chunks, ` +
			`· none cited, ░ up to a third, ▒ up to two thirds, ▓ more, █ all`,
	];
}

/** Which chapters the sentences cite, most cited first, and which none cites; nothing for a book without headings. */
function chapterLines(chapters: readonly ChapterCitations[]): string[] {
	if (chapters.length === 0) return [];
	const named = (list: readonly ChapterCitations[], show: (c: ChapterCitations) => string) =>
		`${list.slice(0, NAMED).map(show).join(', ')}${list.length > NAMED ? `, and ${list.length - NAMED} more` : ''}`;
	const cited = chapters
		.filter((c) => c.sentences > 0)
		.sort((a, b) => b.sentences - a.sentences || a.index - b.index);
	const uncited = chapters.filter((c) => c.sentences === 0);
	const bySentences = named(cited, (c) => `${chapterName(c)} ${formatInt(c.sentences)}`);
	return [
		`chapters: ${cited.length} of ${chapters.length} cited${cited.length ? ` (sentences: ${bySentences})` : ''}`,
		...(uncited.length ? [`not cited: ${named(uncited, chapterName)}`] : []),
	];
}

/** `coverage`'s lines: the book, the session and the final summary's node, then its coverage `width` wide. */
export function finalCoverageLines(
	head: { title: string; id: string; node: string },
	c: PlacedCoverage,
	width: number,
): string[] {
	return [
		`${head.title} — session ${head.id}: coverage of the final summary (node ${head.node})`,
		...coverageLines(c, width),
	];
}
