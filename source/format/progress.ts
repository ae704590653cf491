/**
 * Progress figures the run screen, the score screen and the headless progress lines share: the ETA
 * and what a rate limit's wait says. Pure, and free of Ink, so the headless commands load none of
 * the terminal app's packages.
 */
import { formatInt } from './count.ts';
import { formatSeconds } from './duration.ts';

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
