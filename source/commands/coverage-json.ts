import type { Coverage } from '../evidence/coverage.ts';
import { stripChart } from '../evidence/strip.ts';

/** Room the strip chart's labels take on its line: "start " and " end". */
export const LABELS = 'start  end'.length;

const round = (x: number | null) => (x === null ? null : Math.round(x * 10_000) / 10_000);

/** Coverage as JSON (shared with `report --json`): shares and positions in [0, 1], rounded to 4 places. */
export function coverageJson(c: Coverage, strip: string) {
	return {
		chunks: c.chunks,
		sentences: c.sentences,
		citing: c.citing,
		cited: c.cited,
		share: round(c.share),
		mean_position: round(c.meanPosition),
		halves: { first: round(c.halves.first), second: round(c.halves.second), ratio: round(c.halves.ratio) },
		slope: round(c.slope),
		parts: c.parts.map((p) => ({
			from: p.from,
			to: p.to,
			chunks: p.chunks,
			cited: p.cited,
			share: round(p.share),
		})),
		citations: c.citations,
		strip,
	};
}

/** The coverage of a run's final summary as `report --json` shows it (as `coverage --json` piped), or null before there is one. */
export function finalCoverageJson(c: Coverage | null, width = 80) {
	return c && coverageJson(c, stripChart(c.citations, Math.max(1, width - LABELS)));
}
