import { costText } from '../../format/cost.ts';
import { compact } from '../../format/count.ts';
import { formatSeconds } from '../../format/duration.ts';
import { EXTRACTIVE_LABEL } from '../../llm/provider.ts';
import type { RunInfo } from '../controls.ts';
import { useNow } from '../hooks.ts';
import { rateWaitText } from '../../format/progress.ts';
import {
	chunksRead,
	elapsedMs,
	etaSeconds,
	phaseOf,
	progressOf,
	type Phase,
	type ViewState,
} from '../state/view.ts';
import { clean, textWidth, truncate } from '../../format/text.ts';
import type { Tone } from '../theme.ts';
import { ProgressHeader } from './ProgressHeader.tsx';

const PHASES: Record<Phase, { mark: string; tone: Tone | undefined }> = {
	idle: { mark: '○ idle', tone: 'muted' },
	running: { mark: '▶ running', tone: 'accent' },
	paused: { mark: '❚❚ paused', tone: 'warn' },
	stepping: { mark: '⏵ stepping', tone: 'warn' },
	done: { mark: '✓ done', tone: 'ok' },
	failed: { mark: '✗ failed', tone: 'error' },
	cancelled: { mark: '■ stopped', tone: 'warn' },
};

/**
 * The run's state as the header shows it. Stepping, the run waits between steps: the mark says a
 * step is under way only while its call is, and then that the next waits for its key.
 */
function stateMark(phase: Phase, inFlight: number, calling: number): string {
	if (phase === 'paused' && inFlight > 0) return `${PHASES.paused.mark} (${inFlight} finishing)`;
	if (phase === 'stepping' && calling === 0) return '❚❚ stepping: s next';
	return PHASES[phase].mark;
}

/**
 * Book, method and model in `room` columns: the longest form that fits whole, shortening the words
 * around the book's title before cutting it, so "(not an LLM)" is never the part a narrow terminal loses.
 */
export function runTitle(
	info: Pick<RunInfo, 'title' | 'isLLM' | 'provider' | 'model'>,
	method: 'hier' | 'inc',
	room: number,
): string {
	const book = clean(info.title);
	const model = info.isLLM ? clean(`${info.provider} ${info.model}`) : EXTRACTIVE_LABEL;
	const short = info.isLLM ? clean(info.model) : 'extractive (not an LLM)';
	const forms = [
		`booook · ${book} · ${method === 'hier' ? 'hierarchical merging' : 'incremental updating'} · ${model}`,
		`booook · ${book} · ${method === 'hier' ? 'hierarchical' : 'incremental'} · ${model}`,
		`${book} · ${method} · ${model}`,
		`${book} · ${method} · ${short}`,
	];
	const tail = ` · ${method} · ${short}`;
	return (
		forms.find((form) => textWidth(form) <= room) ??
		truncate(`${truncate(book, Math.max(1, room - textWidth(tail)))}${tail}`, room)
	);
}

/** Book, method and model; progress bar, chunks, tokens, cost, elapsed, ETA and state. */
export function Header({ info, view, width }: { info: RunInfo; view: ViewState; width: number }) {
	const now = useNow(view.active, view.startedAt ?? 0);
	const phase = phaseOf(view);
	const inFlight = Object.keys(view.live).length;
	const state = stateMark(phase, inFlight, view.calling.length);
	// While the account's rate limit holds calls back, that is the news: it takes the title's place.
	const room = Math.max(10, width - textWidth(state) - 2);
	const waiting = view.active ? rateWaitText(view.rateLimit, now, room) : null;
	const title = waiting !== null ? truncate(waiting, room) : runTitle(info, view.method, room);
	const { calls, planned, ratio } = progressOf(view);
	const eta = etaSeconds(view, now);
	const tokens = view.totals.input + view.totals.output;
	const facts =
		` ${calls}/${planned} calls · chunks ${chunksRead(view)}/${view.chunks} · ${compact(tokens)} ` +
		`tok · ${costText(view.totals.cost, info.priced)} · ${formatSeconds(elapsedMs(view, now) / 1000)}${eta === null ? '' : ` · ETA ${formatSeconds(eta)}`}`;
	return (
		<ProgressHeader
			title={title}
			waiting={waiting !== null}
			mark={state}
			tone={PHASES[phase].tone}
			ratio={ratio}
			facts={facts}
			width={width}
		/>
	);
}
