import { usd } from './cost.ts';
import { counted, formatInt } from './count.ts';
import { fixed, scoreText } from './number.ts';
import { points } from './percent.ts';

/** `score`'s figures as text and JSON, what it left out, and why it did not ask again. */

/** A system's BooookScore figures (app/score-session.ts `SystemFigures`). */
export type SystemFigures = Record<
	'summaries' | 'sentences' | 'confusing' | 'failures' | 'avgTokens',
	number
> & {
	score: number | null;
	types: Readonly<Record<string, number>>;
	books: Readonly<Record<string, number | null>>;
	distribution: readonly { label: string; per100: number; count: number }[];
};

/** A session's score (score/session-score.ts `SessionScore`): each book's, with the sentences no answer could be read for. */
interface SessionScore {
	entries: readonly {
		book: string;
		score: { score: number | null };
		failures: readonly { sentence: number; reason: string }[];
	}[];
	missing: number;
}

/** The score's figures and who gave its verdicts (app/score-session.ts `ScoringResult`). */
interface ScoringResult {
	score: SessionScore;
	figures: SystemFigures;
	human: SystemFigures | null;
	annotators: readonly string[];
}

/** The annotating calls' totals (summarize/totals.ts `Totals`). */
type Totals = Record<'calls' | 'input' | 'cached' | 'output' | 'cost' | 'saved', number>;

/** Why unreadable answers were not asked again (app/score.ts): what would let them be. */
export type Unasked =
	{ why: 'uncallable'; annotator: string } | { why: 'extractive' } | { why: 'no-key'; variable: string };

/** What to do, then run, to ask again: "set OPENAI_API_KEY and run"; plain "run" when nothing stood in the way. */
export function unaskedWords(unasked: Unasked | null): string {
	if (unasked === null) return 'run';
	switch (unasked.why) {
		case 'uncallable':
			return `${unasked.annotator} cannot be called by booook: name a model with --provider and --model and run`;
		case 'extractive':
			return 'pass --provider openai|anthropic with its key set and run';
		case 'no-key':
			return `set ${unasked.variable} and run`;
	}
}

export function systemJson(f: SystemFigures) {
	return {
		booookscore: f.score,
		summaries: f.summaries,
		sentences: f.sentences,
		confusing: f.confusing,
		parse_failures: f.failures,
		avg_tokens: f.avgTokens,
		types: f.types,
		books: f.books,
	};
}

export function distributionLines(f: SystemFigures): string[] {
	return [
		'error types per 100 sentences:',
		...f.distribution.map((d) => `  ${d.label.padEnd(18)} ${fixed(d.per100, 2)}  (${d.count})`),
	];
}

export function headline(label: string, f: SystemFigures): string {
	return (
		`${label} ${scoreText(f.score, 'n/a')} over ${counted(f.summaries, 'summary', 'summaries')} ` +
		`(${counted(f.sentences, 'sentence')}, ${f.confusing} confusing, ${f.failures} unparsed); ` +
		`average ${fixed(f.avgTokens, 1)} tokens per summary`
	);
}

/** A session's score as `score --json` prints it: the figures, the session, the annotators and what the calls cost. */
export function scoreJson(
	{ score, figures, human, annotators }: ScoringResult,
	extra: { session: string; totals: Totals | null },
) {
	const t = extra.totals;
	return {
		...systemJson(figures),
		session: extra.session,
		annotators,
		missing: score.missing,
		calls: t?.calls ?? 0,
		cached_tokens: t?.cached ?? 0,
		cost: t?.cost ?? 0,
		saved: t?.saved ?? 0,
		...(human ? { human: systemJson(human) } : {}),
	};
}

/** A session's score as `score` prints it: the score, the annotators, each book's, the error types, and the calls made. */
export function scoreLines({ score, figures, human, annotators }: ScoringResult, t: Totals | null): string[] {
	const lines = [headline('BooookScore', figures), `annotations: ${annotators.join(', ')}`];
	if (human) lines.push(headline('from human annotations:', human));
	if (score.entries.length > 1)
		lines.push(
			'per book:',
			...score.entries.map(
				(e) => `  ${e.score.score === null ? '  n/a' : points(e.score.score).padStart(5)}  ${e.book}`,
			),
		);
	lines.push(...distributionLines(figures));
	if (t && t.calls > 0) {
		lines.push(
			`${counted(t.calls, 'call')}: ${counted(t.input, 'input token')} (${formatInt(t.cached)} from ` +
				`the prompt cache), ${formatInt(t.output)} output, ${usd(t.cost)} (the cache saved ${usd(t.saved)})`,
		);
	}
	return lines;
}

/** The warnings of what the score leaves out: sentences with no readable answer (`again`: how to ask again), and those with none. */
export function leftOutLines(score: SessionScore, again: string): string[] {
	const lines: string[] = [];
	const failures = score.entries.flatMap((e) => e.failures.map((f) => ({ book: e.book, ...f })));
	if (failures.length > 0) {
		lines.push(
			`warning: ${counted(failures.length, 'sentence')} had no readable answer after every retry ` +
				`and ${failures.length === 1 ? 'is' : 'are'} left out of the score (${again}):`,
			...failures.map((f) => `  ${f.book}, sentence ${f.sentence + 1}: ${f.reason}`),
		);
	}
	if (score.missing > 0)
		lines.push(
			`warning: ${counted(score.missing, 'sentence')} have no annotation and are left out of the score`,
		);
	return lines;
}

/** The collection session `score --summaries` made, and the command that continues its scoring. */
export function collectionLine(id: string, created: { file: string; count: number }, again: string): string {
	return (
		`new collection session ${id} (${counted(created.count, 'summary', 'summaries')} from ${created.file}); ` +
		`continue a stopped scoring with: ${again}`
	);
}

/** Annotating that did not finish: stopped (what was annotated is saved) or failed, and the command that continues it. */
export function annotatingEndText(
	status: 'cancelled' | 'failed',
	error: string | null,
	again: string,
): string {
	return status === 'cancelled'
		? `stopped; the annotations so far are saved. Continue with: ${again}`
		: `annotating failed: ${error ?? 'unknown error'}\nFix the cause, then continue with: ${again}`;
}
