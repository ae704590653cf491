import { Box, Text, useApp } from 'ink';
import { useState, useSyncExternalStore } from 'react';
import type { Annotation, ErrorType, ScoredSummary, Span } from '../../../domain.ts';
import { summarySentences } from '../../state/summary-sentences.ts';
import { seededRandom } from '../../../score/bootstrap.ts';
import { LABELS } from '../../../score/labels.ts';
import { precisionBySource } from '../../../score/precision.ts';
import {
	firstUnjudged,
	isBlind,
	PARTIAL_REASONS,
	verdictsOf,
	walkProgress,
	type SourceProgress,
} from '../../../score/validation.ts';
import type { ValidationWalk } from '../../../app/validation-walk.ts';
import { Footer } from '../../components/Footer.tsx';
import { Help } from '../../components/Help.tsx';
import { useKeyedModel, useTerminalSize } from '../../hooks.ts';
import { MarkedSummary } from '../../components/MarkedSummary.tsx';
import { clean, cutLines, textWidth, truncate, windowOf, wrap } from '../../../format/text.ts';
import { useTheme } from '../../theme.ts';
import { spanOf, type Adding } from './adding.ts';
import { reportSave, type WalkProps } from '../walk.ts';
import { EvidencePane } from '../../components/EvidencePane.tsx';
import { TextField } from '../../components/TextField.tsx';
import { RESAMPLES, resultsLines, walkResults, type WalkResults } from './results.ts';
import {
	init,
	screenOf,
	undoneMessage,
	update,
	VERDICT_WORD,
	type Overlay,
	type WalkEffect,
	type WalkMsg,
	type WalkWorld,
} from './model.ts';
import { commandLine } from '../../../program.ts';
import { useProgram } from '../../program-context.ts';
import { percent, percentInterval } from '../../../format/percent.ts';

const VERDICT_TONE = { agree: 'ok', partial: 'warn', disagree: 'error' } as const;

/**
 * The validation walk: the summary with the current annotation's span(s) highlighted in place,
 * the annotation below it, and the verdict keys of Appendix G. Every key goes through the keymap
 * into one update (model.ts); its effects are verdicts and annotations the walk saves the
 * moment they are given. This screen reads the walk and lays the walk out to fit the terminal.
 */
export function ValidateScreen({
	walk,
	title,
	evidenceFor,
	onBack,
	onQuit,
}: WalkProps<ValidationWalk, { summary: ScoredSummary['id']; sentence: number }>) {
	useSyncExternalStore(walk.subscribe, walk.getVersion);
	const theme = useTheme();
	const program = useProgram();
	const { exit } = useApp();
	const { columns, rows } = useTerminalSize();
	const items = walk.items;
	const blind = isBlind(walk.settings.mode);

	const sentencesOf = (id: ScoredSummary['id']) => summarySentences(walk.summaries.get(id));

	/** The walk as it is now, for the update: read per key, so each press sees the one before saved. */
	const world = (): WalkWorld => {
		const judgments = walk.judgments;
		let latest: Annotation['id'] | null = null;
		for (let i = judgments.length - 1; i >= 0 && latest === null; i--)
			if (judgments[i]!.validator === walk.validator) latest = judgments[i]!.annotation;
		return {
			items,
			verdicts: verdictsOf(judgments, walk.validator),
			latest,
			sentences: (id) => sentencesOf(id).length,
			page: Math.max(1, rows - 3),
		};
	};
	const hidden = () => blind && items.some((a) => !verdictsOf(walk.judgments, walk.validator).has(a.id));

	const quit = () => (onQuit ? onQuit() : exit());
	// The sample's running estimate: once per saved verdict, not per frame. A blind walk shows none
	// (judged/total only, as documented): a running agreement rate could anchor the verdicts to come.
	const estimateNow = () => (walk.settings.mode === 'sample' ? runningEstimate(walk) : null);
	const [estimate, setEstimate] = useState(estimateNow);
	const perform = (effect: WalkEffect, dispatch: (msg: WalkMsg) => void): void => {
		// A saved verdict moves the estimate on.
		const report = <T,>(work: Promise<T>, done: (value: T) => string) =>
			reportSave(
				work,
				(value) => {
					setEstimate(estimateNow());
					return done(value);
				},
				dispatch,
				program,
			);
		switch (effect.kind) {
			case 'judge':
				return report(
					walk.judge(effect.annotation, effect.verdict, effect.reasons, effect.note),
					() => effect.done,
				);
			case 'undo':
				return report(walk.undo(), (undone) =>
					undoneMessage(undone, items, verdictsOf(walk.judgments, walk.validator)),
				);
			case 'annotate': {
				const text = walk.summaries.get(effect.summary)?.text ?? '';
				const spans = effect.ranges.map((r, i) =>
					spanOf(text, sentencesOf(effect.summary), r, effect.trims[i]!),
				);
				return report(
					walk.annotate(effect.summary, spans, effect.questions, effect.types),
					() => `added your annotation (${spans.length === 2 ? 'relation' : 'single span'})`,
				);
			}
			case 'results': {
				const input = {
					session: walk.session,
					items,
					validator: walk.validator,
					seed: walk.settings.seed,
					sealed: hidden(),
				};
				// After this frame ("computing…") is drawn: the bootstrap takes a moment on a large session.
				setImmediate(() => dispatch({ type: 'results', results: walkResults(input) }));
				return;
			}
			case 'quit':
				return quit();
			case 'back':
				return onBack ? onBack() : quit();
		}
	};
	// The walk opens on the first annotation not judged yet.
	const start = () => init(firstUnjudged(items, walk.judgments, walk.validator));
	const ui = useKeyedModel({ init: start, update }, world, perform, (state) => screenOf(state.overlay));

	const judgments = walk.judgments;
	const verdicts = verdictsOf(judgments, walk.validator);
	const judgedAll = items.length > 0 && items.every((a) => verdicts.has(a.id));
	const hideSource = blind && !judgedAll;
	const progress = walkProgress(items, judgments, walk.validator);

	if (ui.overlay.kind === 'help')
		return (
			<Help screen="validate" width={columns} height={Math.max(3, rows - 1)} scroll={ui.overlay.scroll} />
		);
	if (ui.overlay.kind === 'results')
		return (
			<ResultsView
				title={title}
				results={ui.overlay.results}
				scroll={ui.overlay.scroll}
				rows={rows}
				columns={columns}
			/>
		);

	if (items.length === 0) {
		return (
			<Box flexDirection="column">
				<Text>
					{clean(title)}: nothing to validate in this walk ({walk.settings.mode}). Import or make annotations
					first ({commandLine(program, 'import')} / {commandLine(program, 'score')}).
				</Text>
				<Text color={theme.color('muted')}>q quit</Text>
			</Box>
		);
	}

	const index = Math.min(ui.index, items.length - 1);
	const current = items[index]!;
	const summary = walk.summaries.get(current.summary);
	const sentences = sentencesOf(current.summary);
	const judgment = verdicts.get(current.id);
	const width = Math.max(20, columns - 2);

	// The layout is counted line by line so the whole frame stays below the terminal's height:
	// a frame as tall as the terminal scrolls its first lines (the header) away.
	const questionRows = rows >= 30 ? 4 : 2;
	const questions = cutLines(wrap(`Questions: ${clean(current.questions)}`, width), questionRows, width);
	const overlayRows = overlayHeight(ui.overlay, width);
	// The book's passages for the (first) sentence the annotation is about, while no dialog is open.
	const sentence =
		current.sentence ??
		Math.max(
			0,
			sentences.findIndex((s) => s.end > (current.spans[0]?.start ?? 0)),
		);
	const evidence =
		evidenceFor && ui.overlay.kind === 'none' ? evidenceFor({ summary: current.summary, sentence }) : [];
	const evidenceRows = evidence.length === 0 ? 0 : rows >= 30 ? 8 : rows >= 24 ? 4 : 0;
	// A message (a save that failed says why and what to do) wraps onto a few rows instead of being cut.
	const message = ui.message ? cutLines(wrap(clean(ui.message), width), 3, width) : [];
	const fixed =
		1 +
		1 +
		(estimate ? 1 : 0) +
		1 +
		questions.length +
		(hideSource ? 0 : 1) +
		1 +
		overlayRows +
		evidenceRows +
		message.length +
		1;
	const paneHeight = Math.max(1, rows - 1 - fixed - 2);

	const addingSpans: Span[] | null =
		ui.overlay.kind === 'adding' && summary
			? ui.overlay.ranges.map((r, i) => spanOf(summary.text, sentences, r, (ui.overlay as Adding).trims[i]!))
			: null;

	return (
		<Box flexDirection="column" width={columns}>
			<Text bold wrap="truncate">
				{headerLine(title, walk.settings.mode, blind, walk.validator, width)}
			</Text>
			<ProgressLine progress={progress} hide={hideSource} width={width} />
			{estimate ? (
				<Text wrap="truncate">
					{truncate(`estimate from the sample (95% interval over books): ${estimate}`, width)}
				</Text>
			) : null}
			<MarkedSummary
				text={summary?.text ?? ''}
				spans={addingSpans ?? current.spans}
				width={width}
				height={paneHeight}
			/>
			<Text wrap="truncate">
				{truncate(
					`annotation ${index + 1}/${items.length} · ${clean(summary?.book ?? '')}` +
						(hideSource ? '' : ` · ${current.source} (${clean(current.annotator)})`) +
						(current.spans.length === 2 ? ' · relation: two places' : ''),
					width,
				)}
			</Text>
			{questions.map((line, i) => (
				<Text key={i} wrap="truncate">
					{line}
				</Text>
			))}
			{/* Hidden in a blind walk: the released human annotations have no types, the model's do. */}
			{hideSource ? null : (
				<Text wrap="truncate">
					{truncate(`Types: ${current.types.length ? current.types.join(', ') : '—'}`, width)}
				</Text>
			)}
			<Text
				wrap="truncate"
				color={judgment ? theme.color(VERDICT_TONE[judgment.verdict]) : theme.color('muted')}
			>
				{truncate(
					judgment
						? `your verdict: ${VERDICT_WORD[judgment.verdict]}` +
								(judgment.reasons.length ? ` (${judgment.reasons.join('; ')})` : '') +
								(judgment.note ? ` · note: ${clean(judgment.note)}` : '')
						: 'not judged yet',
					width,
				)}
			</Text>
			<EvidencePane evidence={[...evidence]} rows={evidenceRows} width={width} />
			<OverlayView overlay={ui.overlay} width={width} />
			{message.map((line, i) => (
				<Text key={`m${i}`} wrap="truncate" color={theme.color('accent')}>
					{line}
				</Text>
			))}
			<Footer screen={screenOf(ui.overlay)} />
		</Box>
	);
}

/** The walk's first line: the title gives way first, so the mode and the validator stay in view. */
function headerLine(title: string, mode: string, blind: boolean, validator: string, width: number): string {
	const rest = ` · ${mode}${blind ? ' (sources hidden)' : ''} · validator ${clean(validator)}`;
	const room = width - textWidth('Validate · ') - textWidth(rest);
	return truncate(`Validate · ${room >= 12 ? truncate(clean(title), room) : clean(title)}${rest}`, width);
}

/** Rows an overlay takes below the annotation (each of its lines is cut to one row). */
function overlayHeight(overlay: Overlay, width: number): number {
	switch (overlay.kind) {
		case 'reasons':
			return 2 + 1 + PARTIAL_REASONS.length;
		case 'note':
			return 3;
		case 'adding':
			return overlay.step === 'types'
				? 2 + 1 + Math.ceil(LABELS.length / typeColumns(width))
				: overlay.step === 'questions'
					? 4
					: 3;
		default:
			return 0;
	}
}

const typeColumns = (width: number) => (width >= 60 ? 2 : 1);

/** A sample walk's running estimate, in one line: the precision per source with its interval over books. */
function runningEstimate(walk: ValidationWalk): string {
	const verdicts = verdictsOf(walk.judgments, walk.validator);
	const judged = walk.items.flatMap((a) => {
		const j = verdicts.get(a.id);
		return j ? [{ book: a.summary, source: a.source, verdict: j.verdict }] : [];
	});
	if (judged.length === 0) return 'sample: no verdicts yet';
	const by = precisionBySource(judged, { random: seededRandom(walk.settings.seed), resamples: RESAMPLES });
	return [...by]
		.map(([source, p]) => `${source} ${percentInterval(p.precision, p.precisionInterval)} of ${p.judged}`)
		.join('   ');
}

function ProgressLine({
	progress,
	hide,
	width,
}: {
	progress: Record<'model' | 'human', SourceProgress>;
	hide: boolean;
	width: number;
}) {
	const theme = useTheme();
	let text: string;
	if (hide) {
		const judged = progress.model.judged + progress.human.judged;
		const total = progress.model.total + progress.human.total;
		text = `judged ${judged}/${total}`;
	} else {
		const part = (name: string, p: SourceProgress) =>
			p.total === 0
				? null
				: `${name} ${p.judged}/${p.total} · precision ${percent(p.precision)} · strict ${percent(p.strict)}`;
		text = [part('model', progress.model), part('human', progress.human)].filter(Boolean).join('   ');
	}
	return (
		<Text wrap="truncate" color={theme.color('accent')}>
			{truncate(text, width)}
		</Text>
	);
}

/** The results (tab): computed once when opened; until then, a line saying so. */
function ResultsView({
	title,
	results,
	scroll,
	rows,
	columns,
}: {
	title: string;
	results: WalkResults | null;
	scroll: number;
	rows: number;
	columns: number;
}) {
	const theme = useTheme();
	const program = useProgram();
	const lines = results
		? resultsLines(clean(title), results, columns - 2, program)
		: ['computing the results…'];
	const shown = windowOf(lines, Math.max(3, rows - 2), scroll);
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

function OverlayView({ overlay, width }: { overlay: Overlay; width: number }) {
	const inner = Math.max(10, width - 4);
	switch (overlay.kind) {
		case 'reasons':
			return (
				<Box flexDirection="column" borderStyle="round" paddingX={1}>
					<Text bold wrap="truncate">
						Partially agree: which standards do the questions fail?
					</Text>
					{PARTIAL_REASONS.map((r, i) => (
						<Text
							key={r}
							wrap="truncate"
						>{`${overlay.chosen.includes(r) ? '[x]' : '[ ]'} ${i + 1}. ${r}`}</Text>
					))}
				</Box>
			);
		case 'note':
			return (
				<Box borderStyle="round" paddingX={1}>
					<TextField label="note: " field={overlay.field} width={inner} />
				</Box>
			);
		case 'adding':
			return <AddingView adding={overlay} width={inner} />;
		default:
			return null;
	}
}

function AddingView({ adding, width }: { adding: Adding; width: number }) {
	const describe = adding.ranges
		.map(([a, b]) => (a === b ? `sentence ${a + 1}` : `sentences ${a + 1}–${b + 1}`))
		.join(' + ');
	const title = `your annotation: ${describe}${adding.ranges.length === 2 ? ' (relation)' : ''}`;
	const columns = typeColumns(width);
	const cell = Math.floor(width / columns);
	const typeRows = Array.from({ length: Math.ceil(LABELS.length / columns) }, (_, row) =>
		Array.from({ length: columns }, (_, c) => row + c * Math.ceil(LABELS.length / columns))
			.filter((i) => i < LABELS.length)
			.map((i) =>
				`${adding.types.includes(LABELS[i] as ErrorType) ? '[x]' : '[ ]'} ${i + 1}. ${LABELS[i]}`.padEnd(
					cell,
				),
			)
			.join('')
			.trimEnd(),
	);
	return (
		<Box flexDirection="column" borderStyle="round" paddingX={1}>
			<Text bold wrap="truncate">
				{adding.step === 'types' ? `${title} · error types:` : title}
			</Text>
			{adding.step === 'questions' ? (
				<TextField label="questions: " field={adding.questions} width={width} />
			) : null}
			{adding.step === 'types'
				? typeRows.map((line, i) => (
						<Text key={i} wrap="truncate">
							{line}
						</Text>
					))
				: null}
		</Box>
	);
}
