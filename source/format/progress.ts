/**
 * Progress figures the run screen, the score screen and the headless progress lines share: the ETA
 * and what a rate limit's wait says. Pure, and free of Ink, so the headless commands load none of
 * the terminal app's packages.
 */
import { costText, usd } from './cost.ts';
import { counted, formatInt } from './count.ts';
import { formatSeconds } from './duration.ts';
import { fixed } from './number.ts';

/**
 * Seconds until `planned` calls are made when `done` are, at the pace of the `made` calls this
 * start made in `seconds` (calls recovered from an earlier start are not part of the pace): 0 when
 * nothing is left, null before there is a pace.
 */
export function remainingSeconds(
	planned: number,
	done: number,
	made: number,
	seconds: number,
): number | null {
	if (planned <= done) return 0;
	return made > 0 ? ((planned - done) * seconds) / made : null;
}

/** The ETA as a progress line prints it: "?" before there is a pace. */
export function etaText(planned: number, done: number, made: number, seconds: number): string {
	const left = remainingSeconds(planned, done, made, seconds);
	return left === null ? '?' : formatSeconds(left);
}

/** What the rate-limit figures say; structurally `RateLimitState` (see above: llm/ is not imported). */
export interface RateLimitFigures {
	wait: {
		resumesAt: number;
		endsAt?: number;
		why: 'requests' | 'tokens' | 'input' | 'output' | 'retry-after';
		used: number;
		limit: number;
		shared?: { others?: number };
	} | null;
	answered: number;
	asked: number;
	limits: Partial<Record<'requests' | 'tokens' | 'input' | 'output', number>>;
}

const PER_MINUTE = {
	requests: 'requests',
	tokens: 'tokens',
	input: 'input tokens',
	output: 'output tokens',
} as const;

/**
 * "waiting for the rate limit: resumes in 12s (148,200 of 150,000 tokens a minute used)", or null
 * when nothing waits. A wait longer than --rate-limit-wait allows says when it stops instead (the
 * server may have named years). A limit another process on the key uses too says so: otherwise a
 * run that waits for another's calls looks stuck. With `width`, the longest of its shorter forms
 * that fits ("rate limit: resumes in 12s" at the least): when it is cut, the time is what goes, and
 * that is the news; the other process is the next thing to keep.
 */
export function rateWaitText(limits: RateLimitFigures | null, now: number, width = Infinity): string | null {
	const wait = limits?.wait;
	if (!wait) return null;
	const seconds = (at: number) => formatSeconds(Math.max(0, (at - now) / 1000));
	const shared = wait.shared;
	const another = 'another process on this key';
	let forms: string[];
	if (wait.endsAt !== undefined && wait.endsAt < wait.resumesAt) {
		const stops = `stops in ${seconds(wait.endsAt)}`;
		forms = [
			`waiting for the rate limit: longer than --rate-limit-wait allows, ${stops}`,
			`rate limit: longer than --rate-limit-wait, ${stops}`,
			`rate limit: ${stops}`,
		];
		if (shared)
			forms = [
				`waiting for the rate limit, which ${another} is using too: longer than --rate-limit-wait allows, ${stops}`,
				`rate limit, shared with another process: longer than --rate-limit-wait, ${stops}`,
				`rate limit, shared with another process: ${stops}`,
				...forms.slice(1),
			];
	} else if (wait.why === 'retry-after') {
		const resumes = `resumes in ${seconds(wait.resumesAt)}`;
		forms = shared
			? [
					`waiting for the rate limit, which ${another} is using too: the server asked to wait, ${resumes}`,
					`rate limit, shared with another process: server asked to wait, ${resumes}`,
					`rate limit, shared with another process: ${resumes}`,
					`rate limit: ${resumes}`,
				]
			: [
					`waiting for the rate limit: the server asked to wait, ${resumes}`,
					`rate limit: server asked to wait, ${resumes}`,
					`rate limit: ${resumes}`,
				];
	} else {
		const resumes = `resumes in ${seconds(wait.resumesAt)}`;
		const used = `${formatInt(wait.used)} of ${formatInt(wait.limit)} ${PER_MINUTE[wait.why]} a minute used`;
		const others = shared?.others;
		forms = shared
			? [
					others === undefined
						? `waiting for the rate limit, which ${another} is using too: ${resumes} (${used})`
						: `waiting for the rate limit: ${resumes} (${used}, ${formatInt(others)} of them by ${another})`,
					others === undefined
						? `rate limit, shared with another process: ${resumes} (${used})`
						: `rate limit: ${resumes} (${used}, ${formatInt(others)} by another process)`,
					`rate limit, shared with another process: ${resumes}`,
					`rate limit: ${resumes}`,
				]
			: [
					`waiting for the rate limit: ${resumes} (${used})`,
					`rate limit: ${resumes} (${used})`,
					`rate limit: ${resumes}`,
				];
	}
	return forms.find((form) => form.length <= width) ?? forms.at(-1)!;
}

/**
 * The least seconds `calls` more calls take under the known limits, at the tokens the answered
 * calls asked for on average (prompt plus output limit); null when no limit is known.
 */
export function limitedEtaSeconds(calls: number, limits: RateLimitFigures | null): number | null {
	if (!limits || calls <= 0) return null;
	// Before an answer the tokens a call asks for are unknown: only the requests limit says anything.
	const perCall = limits.answered > 0 ? limits.asked / limits.answered : null;
	let seconds: number | null = null;
	for (const [why, limit] of Object.entries(limits.limits)) {
		if (!limit || (why !== 'requests' && perCall === null)) continue;
		const need = why === 'requests' ? calls : calls * perCall!;
		seconds = Math.max(seconds ?? 0, (need / limit) * 60);
	}
	return seconds;
}

/** The larger of the pace's ETA and the limits' (either may be unknown). */
export function etaUnderLimits(pace: number | null, limited: number | null): number | null {
	if (pace === null) return limited;
	return limited === null ? pace : Math.max(pace, limited);
}

/**
 * `counts; waiting for the rate limit: …` while the limits hold calls back (null when they do not).
 * On a terminal (`columns` wide) the line must fit its width: the first of `counts`' forms (fullest first) beside which
 * the wait fits, and says so when another process uses the limit too (that is why the run is slow).
 */
function waitingLine(
	counts: string[],
	limits: RateLimitFigures | null,
	now: number,
	columns: number | null,
): string | null {
	if (!limits?.wait) return null;
	const lines = counts.map((prefix) => {
		// The status line keeps its last column free.
		const room = columns === null ? Infinity : columns - 1 - prefix.length - 2;
		const waiting = rateWaitText(limits, now, room)!;
		const fits = waiting.length <= room && (!limits.wait?.shared || /another process/u.test(waiting));
		return { line: `${prefix}; ${waiting}`, fits };
	});
	return (lines.find((l) => l.fits) ?? lines.at(-1)!).line;
}

/**
 * What the rate limits cost a run, said once it ends when they held it back at all: the 429s, and
 * the tokens its calls asked for (prompt plus output limit, what the limits count) against those used.
 */
export function limitsSpent(
	limits: { refusals: number; answered: number; asked: number; used: number; limits: object } | null,
): string | null {
	if (!limits || limits.answered === 0) return null;
	const share = limits.used > 0 ? ` (${fixed(limits.asked / limits.used, 2)}× what was used)` : '';
	return (
		`rate limits: ${counted(limits.refusals, 'answer')} of 429; the calls asked for ${counted(limits.asked, 'token')} ` +
		`of the limits and used ${formatInt(limits.used)}${share}`
	);
}

/** What a progress line reads: the calls made of those planned, `made` by this start in `elapsed` seconds; the limits; the terminal's width. */
interface Pace {
	done: number;
	planned: number;
	made: number;
	elapsed: number;
	limits: RateLimitFigures | null;
	now: number;
	columns: number | null;
}

/** "ETA 1m 20s" from the pace and the rate limits, whichever is later; "ETA ?" before there is a pace. */
function etaOf(p: Pace): string {
	const eta = etaUnderLimits(
		remainingSeconds(p.planned, p.done, p.made, p.elapsed),
		limitedEtaSeconds(p.planned - p.done, p.limits),
	);
	return `ETA ${eta === null ? '?' : formatSeconds(eta)}`;
}

/** The first line of a headless run: the model (or the baseline), the method and the session. */
export function runStartedLine(e: {
	isLLM: boolean;
	provider: string;
	model: string;
	method: string;
	session: string;
}): string {
	return (
		`${e.isLLM ? `${e.provider} ${e.model}` : 'extractive baseline (not an LLM)'}, ` +
		`${e.method === 'hier' ? 'hierarchical merging' : 'incremental updating'}, session ${e.session}`
	);
}

/** A headless run's progress line: calls, tokens, cost, time elapsed, ETA. */
export function runLine(
	p: Pace & { tokensIn: number; tokensOut: number; cost: number; priced: boolean },
): string {
	const etaText = etaOf(p);
	const counts = `[${p.done}/${p.planned} calls]`;
	// While the limits hold calls back, that is the news: the line keeps the counts and gives the wait the rest of the width.
	const waiting = waitingLine(
		[`${counts} ${formatSeconds(p.elapsed)} elapsed, ${etaText}`, `${counts} ${etaText}`, counts],
		p.limits,
		p.now,
		p.columns,
	);
	return (
		waiting ??
		`${counts} ${counted(p.tokensIn, 'token')} in, ${formatInt(p.tokensOut)} out, ${costText(p.cost, p.priced)}, ` +
			`${formatSeconds(p.elapsed)} elapsed, ${etaText}`
	);
}

/** The first line of an annotation: who annotates how many sentences of how many summaries, in how many calls. */
export function annotateStartedLine(e: {
	annotator: string;
	sentences: number;
	summaries: readonly unknown[];
	units: number;
	recovered: number;
	session: string;
}): string {
	return (
		`${e.annotator} annotating ${counted(e.sentences, 'sentence')} of ${counted(e.summaries.length, 'summary', 'summaries')} ` +
		`in ${counted(e.units, 'call')}` +
		(e.recovered > 0 ? ` (${counted(e.recovered, 'answer')} recovered from the call log)` : '') +
		`, session ${e.session}`
	);
}

/**
 * An annotation's progress line: calls answered (and refused) of those planned, sentences, tokens, cost and time;
 * null before the first call's totals, unless the limits hold calls back.
 */
export function annotateLine(
	p: Omit<Pace, 'done'> & {
		calls: number;
		annotated: number;
		sentences: number;
		limits: (RateLimitFigures & { refusals: number }) | null;
		totals: Record<'input' | 'cached' | 'output' | 'cost' | 'saved', number> | null;
	},
): string | null {
	const etaText = etaOf({ ...p, done: p.calls });
	const refused = p.limits && p.limits.refusals > 0 ? `, ${p.limits.refusals} refused (429)` : '';
	const calling = `[${p.calls}/${p.planned} calls]`;
	const counts = `[${p.calls}/${p.planned} calls${refused}] ${p.annotated}/${p.sentences} sentences`;
	const waiting = waitingLine(
		[
			`${counts}, ${etaText}`,
			`${calling} ${p.annotated}/${p.sentences} sentences, ${etaText}`,
			`${calling} ${etaText}`,
			calling,
		],
		p.limits,
		p.now,
		p.columns,
	);
	if (waiting !== null) return waiting;
	if (p.totals === null) return null;
	const t = p.totals;
	return (
		`${counts}, ${counted(t.input, 'token')} in (${formatInt(t.cached)} cached), ${formatInt(t.output)} ` +
		`out, ${usd(t.cost)} (cache saved ${usd(t.saved)}), ${formatSeconds(p.elapsed)} elapsed, ${etaText}`
	);
}

/** "evidence of n51: 12,000 of 190,000 sentences (6%), 14s": long work over a node's sentences, `seconds` in. */
export function sentencesLine(what: string, done: number, total: number, seconds: number): string {
	return (
		`${what}: ${formatInt(done)} of ${counted(total, 'sentence')} (${Math.floor((100 * done) / Math.max(1, total))}%), ` +
		formatSeconds(seconds)
	);
}
