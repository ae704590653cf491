/**
 * How bench/trust.ts reads the CLI's JSON, apart from the driver so a test can hand it each shape
 * the commands print: `evidence --json`'s chapters, `report --json`'s faithfulness (as LongEval
 * counts it, per unit kind, and as it was counted before) and `memory --json`'s accuracy, floor and
 * shortcut. A figure the JSON does not hold is null (shown as "—").
 */
import type { LabelledBook } from '../test/support/evidence-set.ts';

/** What is read of `evidence --json`. */
export interface EvidenceJson {
	evidence: { text: string; passages: { chapter: { title: string } | null }[] }[];
}

/** How often the right chapters lead, for one book's labelled sentences. */
export interface Placed {
	single: number;
	top1: number;
	top3: number;
	two: number;
	both: number;
}

/** The first three passages' chapters of each true sentence, and how often they are right. */
export function placed(book: LabelledBook, shown: EvidenceJson): Placed {
	const truths = book.sentences.filter((s) => s.kind !== 'invented');
	if (shown.evidence.length !== truths.length)
		throw new Error(
			`${book.book}: evidence gave ${shown.evidence.length} sentences for the ${truths.length} imported (the summary was split otherwise)`,
		);
	const got: Placed = { single: 0, top1: 0, top3: 0, two: 0, both: 0 };
	truths.forEach((s, k) => {
		const first = shown.evidence[k]!.passages.slice(0, 3).map((p) => p.chapter?.title);
		if (s.kind === 'single') {
			got.single++;
			if (first[0] === s.chapters[0]) got.top1++;
			if (first.includes(s.chapters[0])) got.top3++;
		} else {
			got.two++;
			if (s.chapters.every((c) => first.includes(c))) got.both++;
		}
	});
	return got;
}

/** One model judge's faithfulness figures as `report --json` gives them (fractions, or null). */
export interface Faithful {
	sentences: number | null;
	claims: number | null;
	notFound: number | null;
	contradicted: number | null;
}

export type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
/** `report --json` gives shares in percentage points. */
const fromPoints = (x: unknown): number | null => {
	const n = num(x);
	return n === null ? null : n / 100;
};

/**
 * The model judge's figures in `report --json`'s `faithfulness.validators`: per unit kind
 * (`sentences`, `claims`: `faithful_share`, `shares.not_found`, `shares.contradicted`), or, as
 * `report` gave them before LongEval's counting, `faithful_share` of the sentences and `claims`
 * as counts (`supported` of `claims`).
 */
export function faithful(report: Json): Faithful {
	const validators = isObject(report.faithfulness) ? report.faithfulness.validators : null;
	const judge = isObject(validators)
		? Object.values(validators).find((v): v is Json => isObject(v) && v.origin === 'model')
		: undefined;
	if (!judge) return { sentences: null, claims: null, notFound: null, contradicted: null };
	const sentences = isObject(judge.sentences) ? judge.sentences : null;
	const claims = isObject(judge.claims) ? judge.claims : null;
	const shares = sentences && isObject(sentences.shares) ? sentences.shares : {};
	const supported = num(claims?.supported);
	const all = num(claims?.claims);
	return {
		sentences: fromPoints(sentences ? sentences.faithful_share : judge.faithful_share),
		claims:
			claims && 'faithful_share' in claims
				? fromPoints(claims.faithful_share)
				: supported !== null && all
					? supported / all
					: null,
		notFound: fromPoints(shares.not_found),
		contradicted: fromPoints(shares.contradicted),
	};
}

/** One session's memory figures from `memory --json` (fractions, or null). */
export interface Memory {
	accuracy: number | null;
	correct: number | null;
	n: number | null;
	chance: number | null;
	floor: number | null;
	longest: number | null;
	shortest: number | null;
}

/**
 * A session of `memory --json` (main after the floor's merge): the reader shown the summary
 * (`readers[].shown` "summary"), its `overall` and `chance`; its floor, `floor.overall.accuracy`
 * (null when not asked), else a reader listed on its own shown nothing (`shown` "none"); the
 * options-only shortcut, `shortcuts.longest` and `shortcuts.shortest`. Absent fields read as null.
 */
export function memoryOf(session: Json): Memory {
	const readers = Array.isArray(session.readers) ? session.readers.filter(isObject) : [];
	const reader = readers.find((r) => r.shown === 'summary') ?? readers[0];
	const alone = readers.find((r) => r.shown === 'none');
	const overallOf = (r: Json | undefined): Json => (r && isObject(r.overall) ? r.overall : {});
	const floor = reader && isObject(reader.floor) ? reader.floor : alone;
	const shortcuts = reader && isObject(reader.shortcuts) ? reader.shortcuts : {};
	return {
		accuracy: num(overallOf(reader).accuracy),
		correct: num(overallOf(reader).correct),
		n: num(overallOf(reader).n),
		chance: num(reader?.chance),
		floor: num(overallOf(floor).accuracy),
		longest: num(shortcuts.longest),
		shortest: num(shortcuts.shortest),
	};
}
