import { counted } from './count.ts';
import { intervalJson, intervalNote, type ShownInterval } from './interval.ts';
import { DASH } from './missing.ts';
import { percent, percentInterval, percentNumber } from './percent.ts';
import { fixed } from './number.ts';
import { sanitize } from '../text/sanitize.ts';

/** The paper's four questions as a person reads them, in the order it asks them (score/compare.ts `CRITERIA`). */
export const CRITERION_NAME = {
	overall: 'overall preference',
	detail: 'level of detail',
	structure: 'structure and pacing',
	logic: 'logic and understandability',
} as const;
type Criterion = keyof typeof CRITERION_NAME;

/*
 * The shapes shown, as much of them as is read (format/ sits below score/ and store/): score/preference.ts's
 * `PreferenceResults`, store/comparison.ts's `ComparisonDefinition`, score/compare.ts's judgments.
 */

/** Who judges which pairs (score/compare.ts `Assignment`). */
export type Assignment = { kind: 'all' } | { kind: 'split'; annotators: readonly string[]; overlap: number };

type Share = ShownInterval & { estimate: number; count: number };
type CriterionShares = { criterion: Criterion; judgments: number; pairs: number } & Record<
	'x' | 'y' | 'tie',
	Share
>;
interface PreferenceTable {
	annotator: string | null;
	origin: 'human' | 'model';
	criteria: readonly CriterionShares[];
}
type PreferenceGroup = {
	systems: readonly [string, string];
	pairs: number;
	people: PreferenceTable | null;
} & Record<'annotators' | 'models', readonly PreferenceTable[]>;
type RankCorrelation = Record<'rho' | 'low' | 'high', number | null> & {
	criterion: Criterion;
	n: number;
	level: number;
	method: string;
	why: string | null;
};

export interface PreferenceResults {
	groups: readonly PreferenceGroup[];
	correlation: {
		people: readonly RankCorrelation[];
		annotators: ReadonlyMap<string, readonly RankCorrelation[]>;
	};
	agreement: readonly {
		criterion: Criterion;
		pairs: readonly {
			annotators: readonly [string, string];
			n: number;
			percent: number;
			kappa: number | null;
		}[];
		alpha: number | null;
		units: number;
	}[];
	progress: ReadonlyMap<string, { judged: number; assigned: number | null }>;
	unscored: number;
}

/** A comparison and its results, as app/compare.ts `comparisonResults` gives them. */
export interface Compared {
	snapshot: {
		definition: {
			name: string;
			study: string | null;
			seed: number;
			assignment: Assignment;
			contenders: readonly (Record<'key' | 'session' | 'book' | 'bookKey', string> &
				Record<'summary' | 'method' | 'provider' | 'model', string | null>)[];
			pairs: readonly unknown[];
		};
	};
	results: PreferenceResults;
	/** Each contender's BooookScore (null: not scored). */
	scores: ReadonlyMap<string, number | null>;
	/** Each annotator's standing judgment of each pair. */
	judgments: ReadonlyMap<
		string,
		ReadonlyMap<string, { origin: string; choices: unknown; note: string | null }>
	>;
}

/** Who judges which pairs, as a line says it. */
export function assignmentWords(a: Assignment): string {
	return a.kind === 'all'
		? 'every pair for every annotator'
		: `the pairs split between ${a.annotators.join(', ')}${a.overlap > 0 ? ` (${a.overlap} of them judged by all)` : ''}`;
}

/** A comparison's results as text (Table 4's shape) and as JSON: by `compare --results`, `report NAME.compare` and a study's report. */

/** The two sides' names as a table heads them: what differs between the two configurations. */
export function sideNames(systems: readonly [string, string]): [string, string] {
	const [a, b] = systems.map((s) => s.split(' · ')) as [string[], string[]];
	if (a[0] !== b[0] && a[1] === b[1]) return [a[0]!, b[0]!];
	if (a[0] === b[0] && a[1] !== b[1] && a[1] !== undefined && b[1] !== undefined) return [a[1], b[1]];
	return [systems[0], systems[1]];
}

function tableLines(table: PreferenceTable, sides: [string, string]): string[] {
	const who = table.annotator === null ? 'people pooled' : table.annotator;
	const width = Math.max(16, ...sides.map((s) => s.length + 2));
	const cell = (s: CriterionShares, side: 'x' | 'y' | 'tie') =>
		(s.judgments === 0 ? DASH : percentInterval(s[side].estimate, s[side])).padEnd(Math.max(width, 22));
	const head = `    ${'criterion'.padEnd(30)}${sides[0].padEnd(Math.max(width, 22))}${sides[1].padEnd(Math.max(width, 22))}tie`;
	const rows = table.criteria.map(
		(s) =>
			`    ${CRITERION_NAME[s.criterion].padEnd(30)}${cell(s, 'x')}${cell(s, 'y')}${cell(s, 'tie').trimEnd()}`,
	);
	const first = table.criteria.find((s) => s.judgments > 0);
	return [
		`  ${sanitize(who)}${first ? ` (${counted(first.judgments, 'judgment')} over ${counted(first.pairs, 'pair')})` : ''}`,
		head,
		...rows,
		...(first ? [`    ${intervalNote(first.x)}`] : []),
	];
}

function correlationLine(c: RankCorrelation): string {
	const name = CRITERION_NAME[c.criterion].padEnd(30);
	if (c.rho === null) return `    ${name}${DASH} (${c.why}; ${counted(c.n, 'pair')})`;
	const interval = c.low === null ? ` (${c.why})` : ` [${fixed(c.low, 2)}, ${fixed(c.high, 2)}]`;
	return `    ${name}ρ ${fixed(c.rho, 2)}${interval} over ${counted(c.n, 'pair')}`;
}

/** The results as lines for a terminal or a pipe. */
export function compareLines({ snapshot, results }: Pick<Compared, 'snapshot' | 'results'>): string[] {
	const { definition } = snapshot;
	const books = new Set(definition.contenders.map((c) => c.bookKey)).size;
	const progress = [...results.progress]
		.map(([a, p]) => `${sanitize(a)} ${p.judged}/${p.assigned ?? definition.pairs.length}`)
		.join(', ');
	const lines = [
		`comparison ${sanitize(definition.name)}: ${counted(definition.pairs.length, 'pair')} of ${counted(books, 'book')}, ` +
			`${assignmentWords(definition.assignment)}`,
		`pairs judged on all four criteria: ${progress === '' ? 'none yet' : progress}`,
	];
	for (const group of results.groups) lines.push('', ...groupLines(group));
	const agreeing = results.agreement.filter((a) => a.pairs.length > 0);
	if (agreeing.length > 0) {
		lines.push('', 'agreement where the same pairs were judged (% agreeing, Cohen κ; α over the people)');
		for (const a of agreeing) {
			const pairs = a.pairs
				.map(
					(p) =>
						`${sanitize(p.annotators[0])}–${sanitize(p.annotators[1])} ${percent(p.percent)} κ ${fixed(p.kappa, 2)} over ${counted(p.n, 'pair')}`,
				)
				.join('; ');
			lines.push(
				`    ${CRITERION_NAME[a.criterion].padEnd(30)}${pairs}${a.alpha === null ? '' : `; α ${fixed(a.alpha, 2)}`}`,
			);
		}
	}
	lines.push(
		'',
		'preference against BooookScore difference (Spearman ρ over pairs, 95% Fisher-z interval; preference ' +
			'+1, tie 0, −1 against the difference of the two scores), people pooled',
		...results.correlation.people.map(correlationLine),
	);
	if (results.unscored > 0)
		lines.push(
			`    ${counted(results.unscored, 'pair')} without a BooookScore for both summaries ${results.unscored === 1 ? 'is' : 'are'} ` +
				`left out (score the sessions with booook score ID)`,
		);
	return lines;
}

function groupLines(group: PreferenceGroup): string[] {
	const sides = sideNames(group.systems);
	const lines = [
		`${sanitize(group.systems[0])} vs ${sanitize(group.systems[1])} (${counted(group.pairs, 'pair')})`,
	];
	for (const t of [...(group.people ? [group.people] : []), ...group.annotators, ...group.models])
		lines.push(...tableLines(t, sides));
	if (!group.people && group.models.length === 0) lines.push('  no judgments yet');
	return lines;
}

function tableJson(t: PreferenceTable) {
	return {
		annotator: t.annotator,
		origin: t.origin,
		criteria: Object.fromEntries(
			t.criteria.map((s) => [
				s.criterion,
				{
					judgments: s.judgments,
					pairs: s.pairs,
					...Object.fromEntries(
						(['x', 'y', 'tie'] as const).map((side) => [
							side,
							{
								count: s[side].count,
								percent: s.judgments === 0 ? null : percentNumber(s[side].estimate),
								interval: intervalJson(s[side]),
							},
						]),
					),
				},
			]),
		),
	};
}

function correlationJson(c: RankCorrelation) {
	return { n: c.n, rho: c.rho, low: c.low, high: c.high, level: c.level, method: c.method, why: c.why };
}

/** The results for a program: every figure, the pairs and the judgments themselves. */
export function compareJson({ snapshot, results, scores, judgments: judged }: Compared) {
	const { definition } = snapshot;
	return {
		name: definition.name,
		study: definition.study,
		seed: definition.seed,
		assignment: definition.assignment,
		contenders: definition.contenders.map((c) => ({
			key: c.key,
			session: c.session,
			summary: c.summary,
			book: c.book,
			method: c.method,
			provider: c.provider,
			model: c.model,
			booookscore: scores.get(c.key) ?? null,
		})),
		pairs: definition.pairs,
		judgments: [...judged].flatMap(([annotator, byPair]) =>
			[...byPair].map(([pair, j]) => ({
				pair,
				annotator,
				origin: j.origin,
				choices: j.choices,
				note: j.note,
			})),
		),
		progress: Object.fromEntries(results.progress),
		groups: results.groups.map((g) => ({
			systems: g.systems,
			sides: sideNames(g.systems),
			pairs: g.pairs,
			people: g.people && tableJson(g.people),
			annotators: g.annotators.map(tableJson),
			models: g.models.map(tableJson),
		})),
		agreement: Object.fromEntries(
			results.agreement.map((a) => [
				a.criterion,
				{
					pairs: a.pairs.map((p) => ({ ...p, percent: percentNumber(p.percent) })),
					alpha: a.alpha,
					units: a.units,
				},
			]),
		),
		correlation: {
			people: Object.fromEntries(results.correlation.people.map((c) => [c.criterion, correlationJson(c)])),
			annotators: Object.fromEntries(
				[...results.correlation.annotators].map(([a, list]) => [
					a,
					Object.fromEntries(list.map((c) => [c.criterion, correlationJson(c)])),
				]),
			),
		},
		unscored: results.unscored,
		criteria: Object.keys(CRITERION_NAME),
	};
}
