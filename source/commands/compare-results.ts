import { counted } from '../format/count.ts';
import { intervalJson, intervalNote } from '../format/interval.ts';
import { DASH } from '../format/missing.ts';
import { percent, percentInterval, percentNumber } from '../format/percent.ts';
import { CRITERIA, CRITERION_NAME, judgmentsOf } from '../score/compare.ts';
import type {
	CriterionShares,
	PreferenceGroup,
	PreferenceResults,
	PreferenceTable,
	RankCorrelation,
} from '../score/preference.ts';
import type { ComparisonSnapshot } from '../store/comparison.ts';
import { assignmentWords, comparisonResults, studyComparisons } from '../app/compare.ts';
import { output, safeText, type Stream } from './output.ts';
import { fixed } from '../format/number.ts';

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
		`  ${safeText(who)}${first ? ` (${counted(first.judgments, 'judgment')} over ${counted(first.pairs, 'pair')})` : ''}`,
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
export function compareLines(snapshot: ComparisonSnapshot, results: PreferenceResults): string[] {
	const { definition } = snapshot;
	const books = new Set(definition.contenders.map((c) => c.bookKey)).size;
	const progress = [...results.progress]
		.map(([a, p]) => `${safeText(a)} ${p.judged}/${p.assigned ?? definition.pairs.length}`)
		.join(', ');
	const lines = [
		`comparison ${safeText(definition.name)}: ${counted(definition.pairs.length, 'pair')} of ${counted(books, 'book')}, ` +
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
						`${safeText(p.annotators[0])}–${safeText(p.annotators[1])} ${percent(p.percent)} κ ${fixed(p.kappa, 2)} over ${counted(p.n, 'pair')}`,
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
		`${safeText(group.systems[0])} vs ${safeText(group.systems[1])} (${counted(group.pairs, 'pair')})`,
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
export function compareJson(
	snapshot: ComparisonSnapshot,
	results: PreferenceResults,
	scores: ReadonlyMap<string, number | null>,
) {
	const { definition, records } = snapshot;
	const judged = judgmentsOf(records);
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
		criteria: CRITERIA,
	};
}

/** The results of comparison `name`, as text or JSON (also `booook report NAME.compare`). */
export async function printComparison(
	dir: string,
	name: string,
	opts: { json: boolean; seed: number; resamples: number; stdout?: Stream },
): Promise<number> {
	const { snapshot, results, scores } = await comparisonResults(dir, name, opts);
	const out = output(opts.stdout ?? process.stdout);
	if (opts.json) out.json(compareJson(snapshot, results, scores));
	else out.line(compareLines(snapshot, results).join('\n'));
	return 0;
}

/** The comparisons made over a study's cells, as lines and as JSON, for the study's report. */
export async function studyComparisonResults(
	dir: string,
	study: string,
	opts: { seed: number; resamples: number },
): Promise<{ lines: string[]; json: unknown[] }> {
	const lines: string[] = [];
	const json: unknown[] = [];
	for (const name of await studyComparisons(dir, study)) {
		const { snapshot, results, scores } = await comparisonResults(dir, name, opts);
		lines.push(...compareLines(snapshot, results));
		json.push(compareJson(snapshot, results, scores));
	}
	return { lines, json };
}
