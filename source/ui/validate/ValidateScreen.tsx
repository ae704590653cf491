import { Box, Text, useApp, useInput, type Key } from 'ink';
import TextInput from 'ink-text-input';
import { useCallback, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { Annotation, ErrorType, Span, Verdict } from '../../domain.ts';
import { seededRandom } from '../../score/bootstrap.ts';
import { LABELS } from '../../score/labels.ts';
import { precisionBySource } from '../../score/precision.ts';
import { isBlind, PARTIAL_REASONS, verdictsOf, walkProgress, type SourceProgress } from '../../score/validation.ts';
import type { ValidationStore } from '../../store/validation-store.ts';
import { sentenceSpans } from '../../text/sentences.ts';
import { useTerminalSize } from '../hooks.ts';
import { actionFor, bindingsFor } from '../keymap.ts';
import { clean, truncate, windowOf } from '../text.ts';
import { useTheme } from '../theme.ts';
import { buildReport, reportLines } from '../../score/report.ts';
import { highlightLines } from '../styled-lines.ts';
import { addingReducer, spanOf, type Adding } from './adding.ts';

type Overlay = { kind: 'none' } | { kind: 'reasons'; chosen: string[] } | { kind: 'note'; draft: string } | { kind: 'help' } | { kind: 'results'; offset: number } | Adding;

const VERDICT_WORD: Record<Verdict, string> = { agree: 'agree', partial: 'partially agree', disagree: 'disagree' };
const VERDICT_TONE = { agree: 'ok', partial: 'warn', disagree: 'error' } as const;
const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`);

/**
 * The validation walk: the summary with the current annotation's span(s) highlighted in place,
 * the annotation below it, and the verdict keys of Appendix G. Every verdict is saved by the
 * store the moment it is given; this screen only reads the store and sends it intents.
 */
export function ValidateScreen({ store, title, onBack, onQuit }: { store: ValidationStore; title: string; onBack?: () => void; onQuit?: () => void }) {
	useSyncExternalStore(store.subscribe, store.getVersion);
	const theme = useTheme();
	const { exit } = useApp();
	const { columns, rows } = useTerminalSize();
	// Keys can arrive faster than renders (typing, pasting): handlers read the latest value, not the rendered one.
	const [index, setIndex, indexRef] = useLatest(0);
	const [overlay, setOverlay, overlayRef] = useLatest<Overlay>({ kind: 'none' });
	const [message, setMessage] = useState<string | null>(null);
	const items = store.items;
	const current: Annotation | undefined = items[index];
	const summary = current ? store.summaries.get(current.summary) : undefined;
	const judgments = store.judgments;
	const verdicts = verdictsOf(judgments, store.validator);
	const progress = walkProgress(items, judgments, store.validator);
	const blind = isBlind(store.walk.mode);
	const judgedAll = items.length > 0 && items.every((a) => verdicts.has(a.id));
	const hideSource = blind && !judgedAll;
	const sentences = useMemo(() => (summary ? sentenceSpans(summary.text) : []), [summary]);

	// Inside the run app, q quits the app and esc goes back to the run; on its own, both end it.
	const quit = () => (onQuit ? onQuit() : exit());
	const back = () => (onBack ? onBack() : quit());
	const run = (work: Promise<unknown>, done?: string) => {
		work.then(
			() => setMessage(done ?? null),
			(error: unknown) => setMessage(error instanceof Error ? error.message : String(error)),
		);
	};
	const give = (verdict: Verdict, reasons: string[] = [], note: string | null = null) => {
		const at = indexRef.current;
		const target = items[at];
		if (!target) return;
		run(store.judge(target.id, verdict, reasons, note), `saved: ${VERDICT_WORD[verdict]}`);
		if (at + 1 < items.length) setIndex(at + 1);
	};

	// Keys typed faster than the terminal is read arrive as one string ("aa"): each is its own press,
	// except inside a text field, which takes the string whole.
	useInput((input, key) => {
		const typing = overlayRef.current.kind === 'note' || (overlayRef.current.kind === 'adding' && overlayRef.current.step === 'questions');
		if (!typing && input.length > 1 && !key.ctrl && !key.meta && /^[\x20-\x7e]+$/u.test(input)) {
			for (const ch of input) handle(ch, { ...key, return: false, escape: false, tab: false });
		} else handle(input, key);
	});

	function handle(input: string, key: Key): void {
		const overlay = overlayRef.current;
		const index = indexRef.current;
		const current = items[index];
		if (key.ctrl && input === 'c') return quit();
		if (overlay.kind === 'note' || (overlay.kind === 'adding' && overlay.step === 'questions')) {
			if (key.escape) setOverlay({ kind: 'none' });
			return; // the text input has the keys
		}
		if (overlay.kind === 'help') return setOverlay({ kind: 'none' });
		if (overlay.kind === 'results') {
			if (key.upArrow) return setOverlay({ kind: 'results', offset: Math.max(0, overlay.offset - 1) });
			if (key.downArrow) return setOverlay({ kind: 'results', offset: overlay.offset + 1 });
			if (input === 'q') return quit();
			return setOverlay({ kind: 'none' });
		}
		if (overlay.kind === 'reasons') {
			const n = Number(input);
			if (n >= 1 && n <= PARTIAL_REASONS.length) {
				const reason = PARTIAL_REASONS[n - 1]!;
				const chosen = overlay.chosen.includes(reason) ? overlay.chosen.filter((r) => r !== reason) : [...overlay.chosen, reason];
				setOverlay({ kind: 'reasons', chosen });
			} else if (key.return) {
				if (overlay.chosen.length === 0) return setMessage('pick at least one reason (1–4), or esc');
				setOverlay({ kind: 'none' });
				give('partial', PARTIAL_REASONS.filter((r) => overlay.chosen.includes(r)));
			} else if (key.escape) setOverlay({ kind: 'none' });
			return;
		}
		if (overlay.kind === 'adding') {
			const next = addingReducer(overlay, { input, key }, sentences.length);
			if (next === null) return setOverlay({ kind: 'none' });
			if (next.step === 'save') {
				setOverlay({ kind: 'none' });
				const spans: Span[] = next.ranges.map((r, i) => spanOf(summary!.text, sentences, r, next.trims[i]!));
				return run(store.annotate(summary!.id, spans, next.questions, next.types), `added your annotation (${next.ranges.length === 2 ? 'relation' : 'single span'})`);
			}
			return setOverlay(next);
		}
		const action = actionFor('validate', { input, upArrow: key.upArrow, downArrow: key.downArrow, leftArrow: key.leftArrow, rightArrow: key.rightArrow, return: key.return, escape: key.escape, tab: key.tab, ctrl: key.ctrl });
		setMessage(null);
		switch (action) {
			case 'quit':
				return quit();
			case 'back':
				return back();
			case 'help':
				return setOverlay({ kind: 'help' });
			case 'nextPane':
				return setOverlay({ kind: 'results', offset: 0 });
			case 'left':
				return setIndex(Math.max(0, index - 1));
			case 'right':
				return setIndex(Math.min(items.length - 1, index + 1));
			case 'nextUnjudged': {
				const at = items.findIndex((a, i) => i > index && !verdicts.has(a.id));
				const wrap = at === -1 ? items.findIndex((a) => !verdicts.has(a.id)) : at;
				return wrap === -1 ? setMessage('every annotation is judged') : setIndex(wrap);
			}
			case 'agree':
				return give('agree');
			case 'disagree':
				return give('disagree');
			case 'partial':
				return current && setOverlay({ kind: 'reasons', chosen: [] });
			case 'note': {
				const given = current && verdictsOf(store.judgments, store.validator).get(current.id);
				if (!given) return setMessage('give a verdict first (a, p or d), then add a note to it');
				return setOverlay({ kind: 'note', draft: given.note ?? '' });
			}
			case 'undo':
				return run(
					store.undo().then((undone) => {
						if (!undone) throw new Error('nothing to undo');
						const at = items.findIndex((a) => a.id === undone.annotation);
						if (at !== -1) setIndex(at);
					}),
					'undone',
				);
			case 'addAnnotation':
			case 'link': {
				if (!current || !summary) return;
				const start = Math.max(0, current.sentence ?? 0);
				return setOverlay({ kind: 'adding', step: 'span', ranges: [[start, start]], trims: [[0, 0]], linking: action === 'link', questions: '', types: [] });
			}
			default:
				return;
		}
	}

	if (overlay.kind === 'results') {
		return <ResultsView store={store} title={title} offset={overlay.offset} rows={rows} columns={columns} hideSources={hideSource} />;
	}

	if (items.length === 0) {
		return (
			<Box flexDirection="column">
				<Text>{clean(title)}: nothing to validate in this walk ({store.walk.mode}). Import or make annotations first (booook import / booook score).</Text>
				<Text color={theme.color('muted')}>q quit</Text>
			</Box>
		);
	}

	const width = Math.max(20, columns - 2);
	const textWidth = width - 3;
	const addingSpans: Span[] | null =
		overlay.kind === 'adding' && summary ? overlay.ranges.map((r, i) => spanOf(summary.text, sentences, r, overlay.trims[i]!)) : null;
	const { lines, firstMarked } = highlightLines(summary?.text ?? '', addingSpans ?? current?.spans ?? [], textWidth);
	const paneHeight = Math.max(3, rows - 14);
	const shown = windowOf(lines, paneHeight, Math.max(0, (firstMarked ?? 0) - Math.floor(paneHeight / 3)));
	const judgment = current ? verdicts.get(current.id) : undefined;

	return (
		<Box flexDirection="column" width={columns}>
			<Text bold>
				{truncate(`Validate · ${clean(title)} · ${store.walk.mode}${blind ? ' (sources hidden until the end)' : ''} · validator ${clean(store.validator)}`, width)}
			</Text>
			<ProgressLine progress={progress} hide={hideSource} />
			{store.walk.mode === 'sample' ? <SampleEstimate store={store} /> : null}
			<Box flexDirection="column" borderStyle="single" paddingX={1} height={paneHeight + 2}>
				{shown.lines.map((line, i) => (
					// The gutter mark carries the highlight where styles are off (NO_COLOR, dumb terminals).
					<Text key={i} wrap="truncate">
						{line.some((p) => p.style !== null) ? '▌' : ' '}
						{line.map((p, k) => (p.style !== null ? <Text key={k} inverse>{p.text}</Text> : <Text key={k}>{p.text}</Text>))}
					</Text>
				))}
			</Box>
			{current ? (
				<Box flexDirection="column">
					<Text>
						{`annotation ${index + 1}/${items.length} · ${clean(summary?.book ?? '')}`}
						{hideSource ? '' : ` · ${current.source} (${clean(current.annotator)})`}
						{current.spans.length === 2 ? ' · relation: two places' : ''}
					</Text>
					<Text wrap="wrap">Questions: {clean(current.questions)}</Text>
					<Text>Types: {current.types.join(', ')}</Text>
					<Text color={judgment ? theme.color(VERDICT_TONE[judgment.verdict]) : theme.color('muted')}>
						{judgment ? `your verdict: ${VERDICT_WORD[judgment.verdict]}${judgment.reasons.length ? ` (${judgment.reasons.join('; ')})` : ''}${judgment.note ? ` · note: ${clean(judgment.note)}` : ''}` : 'not judged yet'}
					</Text>
				</Box>
			) : null}
			<OverlayView overlay={overlay} setOverlay={setOverlay} onNote={(note) => judgment && run(store.judge(current!.id, judgment.verdict, judgment.reasons, note || null), 'note saved')} />
			{message ? <Text color={theme.color('accent')}>{clean(message)}</Text> : null}
			<Text color={theme.color('muted')} wrap="truncate">
				{bindingsFor('validate')
					.map((b) => `${b.label} ${b.description.split(' (')[0]}`)
					.join(' · ')}
			</Text>
		</Box>
	);
}

/** State whose latest value is readable at once through the ref, before React re-renders. */
function useLatest<T>(initial: T): [T, (value: T) => void, { readonly current: T }] {
	const [value, setValue] = useState(initial);
	const ref = useRef(initial);
	const set = useCallback((next: T) => {
		ref.current = next;
		setValue(next);
	}, []);
	return [value, set, ref];
}

/**
 * The results of `booook report` inside the walk (tab). In a blind walk they wait until every item
 * is judged: precision by source would reveal which annotations are whose.
 */
function ResultsView({ store, title, offset, rows, columns, hideSources }: { store: ValidationStore; title: string; offset: number; rows: number; columns: number; hideSources: boolean }) {
	const theme = useTheme();
	const version = store.getVersion();
	const lines = useMemo(
		() => (hideSources ? ['Results are shown when every item of the blind walk is judged (they would reveal the sources).'] : reportLines(title, buildReport(store.session, { seed: store.walk.seed, resamples: 500 }), columns - 2)),
		[version, hideSources, columns],
	);
	const shown = windowOf(lines, Math.max(3, rows - 2), offset);
	return (
		<Box flexDirection="column" width={columns}>
			{shown.lines.map((line, i) => (
				<Text key={i} wrap="truncate">
					{line}
				</Text>
			))}
			<Text color={theme.color('muted')}>↑/↓ scroll · any other key: back to the walk · q quit</Text>
		</Box>
	);
}

function ProgressLine({ progress, hide }: { progress: Record<'model' | 'human', SourceProgress>; hide: boolean }) {
	const theme = useTheme();
	if (hide) {
		const judged = progress.model.judged + progress.human.judged;
		const total = progress.model.total + progress.human.total;
		return <Text color={theme.color('accent')}>{`judged ${judged}/${total} · precision by source shown when every item is judged`}</Text>;
	}
	const part = (name: string, p: SourceProgress) => (p.total === 0 ? null : `${name} ${p.judged}/${p.total} · precision ${pct(p.precision)} · strict ${pct(p.strict)}`);
	return <Text color={theme.color('accent')}>{[part('model', progress.model), part('human', progress.human)].filter(Boolean).join('   ')}</Text>;
}

/** Partial annotation (LongEval): the precision of what was judged, with its bootstrap interval over books. */
function SampleEstimate({ store }: { store: ValidationStore }) {
	const version = store.getVersion();
	const text = useMemo(() => {
		const verdicts = verdictsOf(store.judgments, store.validator);
		const judged = store.items.flatMap((a) => {
			const j = verdicts.get(a.id);
			return j ? [{ book: a.summary, source: a.source, verdict: j.verdict }] : [];
		});
		if (judged.length === 0) return 'sample: no verdicts yet';
		const by = precisionBySource(judged, { random: seededRandom(store.walk.seed), resamples: 500 });
		return [...by]
			.map(([source, p]) => `${source} ${(100 * p.precision).toFixed(1)}% [${(100 * p.precisionInterval.low).toFixed(1)}, ${(100 * p.precisionInterval.high).toFixed(1)}] of ${p.judged}`)
			.join('   ');
	}, [version, store]);
	return <Text>{`estimate from the sample (95% interval over books): ${text}`}</Text>;
}

function OverlayView({ overlay, setOverlay, onNote }: { overlay: Overlay; setOverlay: (o: Overlay) => void; onNote: (note: string) => void }) {
	const theme = useTheme();
	switch (overlay.kind) {
		case 'reasons':
			return (
				<Box flexDirection="column" borderStyle="round" paddingX={1}>
					<Text bold>Partially agree: which standards do the questions fail? (number toggles, enter saves, esc cancels)</Text>
					{PARTIAL_REASONS.map((r, i) => (
						<Text key={r}>{`${overlay.chosen.includes(r) ? '[x]' : '[ ]'} ${i + 1}. ${r}`}</Text>
					))}
				</Box>
			);
		case 'note':
			return (
				<Box borderStyle="round" paddingX={1}>
					<Text>note (enter saves, esc cancels): </Text>
					<TextInput
						value={overlay.draft}
						onChange={(draft) => setOverlay({ kind: 'note', draft })}
						onSubmit={(note) => {
							setOverlay({ kind: 'none' });
							onNote(note);
						}}
					/>
				</Box>
			);
		case 'help':
			return (
				<Box flexDirection="column" borderStyle="round" paddingX={1}>
					{bindingsFor('validate').map((b) => (
						<Text key={b.action}>{`${b.label.padEnd(6)} ${b.description}`}</Text>
					))}
					<Text color={theme.color('muted')}>adding: ←/→ move the span · [ ] fewer/more sentences · &gt; &lt; drop a word at the start/end · l link a second span · enter next · esc cancel</Text>
				</Box>
			);
		case 'adding':
			return <AddingView adding={overlay} setOverlay={setOverlay} />;
		default:
			return null;
	}
}

function AddingView({ adding, setOverlay }: { adding: Adding; setOverlay: (o: Overlay) => void }) {
	const describe = adding.ranges.map(([a, b]) => (a === b ? `sentence ${a + 1}` : `sentences ${a + 1}–${b + 1}`)).join(' + ');
	return (
		<Box flexDirection="column" borderStyle="round" paddingX={1}>
			<Text bold>{`your annotation: ${describe}${adding.ranges.length === 2 ? ' (relation)' : ''}`}</Text>
			{adding.step === 'span' ? <Text wrap="wrap">←/→ move · [ ] fewer/more sentences · &gt; &lt; drop a word at the start/end · = whole sentences · {adding.ranges.length === 1 ? 'l link a second span · ' : ''}enter: write the questions · esc cancel</Text> : null}
			{adding.step === 'questions' ? (
				<Box>
					<Text>questions: </Text>
					<TextInput value={adding.questions} onChange={(questions) => setOverlay({ ...adding, questions })} onSubmit={(questions) => setOverlay({ ...adding, questions, step: 'types' })} />
				</Box>
			) : null}
			{adding.step === 'types' ? (
				<Box flexDirection="column">
					<Text>error types (number toggles, enter saves, esc cancels):</Text>
					{LABELS.map((l, i) => (
						<Text key={l}>{`${adding.types.includes(l as ErrorType) ? '[x]' : '[ ]'} ${i + 1}. ${l}`}</Text>
					))}
				</Box>
			) : null}
		</Box>
	);
}
