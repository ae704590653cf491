import { Box, Text, useApp } from 'ink';
import { useSyncExternalStore } from 'react';
import type { ScoredSummary } from '../../../domain.ts';
import {
	FAITHFULNESS_WORD,
	faithfulnessVerdictOn,
	faithfulnessVerdictsOf,
	firstUnjudgedUnit,
	unitKey,
	type FaithfulnessUnit,
} from '../../../score/faithfulness.ts';
import type { FaithfulnessWalk } from '../../../app/faithfulness-walk.ts';
import { summarySentences } from '../../state/summary-sentences.ts';
import { WalkFoot, walkFootRows } from '../../components/WalkFoot.tsx';
import { Help } from '../../components/Help.tsx';
import { useKeyedModel, useTerminalSize } from '../../hooks.ts';
import { MarkedSummary } from '../../components/MarkedSummary.tsx';
import { clean, truncate } from '../../../format/text.ts';
import { useTheme } from '../../theme.ts';
import {
	init,
	screenOf,
	update,
	type FaithfulnessEffect,
	type FaithfulnessMsg,
	type FaithfulnessWorld,
} from './model.ts';
import { reportSave, type WalkProps } from '../walk.ts';
import { EvidencePane } from '../../components/EvidencePane.tsx';
import { DASH } from '../../../format/missing.ts';
import { shareOf } from '../../../format/percent.ts';
import { useProgram } from '../../program-context.ts';
import { commandLine } from '../../../program.ts';

const LABEL_TONE = { faithful: 'ok', partial: 'warn', unfaithful: 'error', unsure: 'warn' } as const;

/**
 * The faithfulness walk (LongEval's fine-grained protocol): the summary with the current sentence
 * highlighted, the verdict keys f / x / c, and below the sentence the slot where evidence passages
 * from the book are shown. `evidenceFor` is how the provenance module plugs in; without it the slot
 * draws nothing. Every key goes through the keymap into one update (model.ts).
 */
export function FaithfulnessScreen({
	walk,
	title,
	evidenceFor,
	reportHint,
	onBack,
	onQuit,
}: WalkProps<FaithfulnessWalk, FaithfulnessUnit> & { reportHint?: string }) {
	useSyncExternalStore(walk.subscribe, walk.getVersion);
	const theme = useTheme();
	const program = useProgram();
	const { exit } = useApp();
	const { columns, rows } = useTerminalSize();
	const units = walk.units;

	const sentencesOf = (id: ScoredSummary['id']) => summarySentences(walk.summary(id));

	// The walk's units as they are when a key arrives, not as this render drew them: `s` switches
	// them at once, and a key typed right after it (before the next render) is for the new ones.
	const world = (): FaithfulnessWorld => {
		const units = walk.units;
		const mine = faithfulnessVerdictsOf(walk.verdicts, walk.validator);
		const verdicts = new Map(
			units.flatMap((u, i) => {
				const v = faithfulnessVerdictOn(mine, u);
				return v ? [[i, v] as const] : [];
			}),
		);
		// Undo takes back the latest verdict: only when it is on a unit shown now (not on a sentence while claims are).
		let latest: number | null = null;
		const all = walk.verdicts;
		for (let i = all.length - 1; i >= 0; i--) {
			const v = all[i]!;
			if (v.validator !== walk.validator) continue;
			const at = units.findIndex((u) => unitKey(u) === unitKey(v));
			latest = at === -1 ? null : at;
			break;
		}
		const ratings = new Map<string, number>([...walk.ratings()].map(([summary, r]) => [summary, r.rating]));
		return { units, verdicts, latest, ratings, page: Math.max(1, rows - 3) };
	};

	const quit = () => (onQuit ? onQuit() : exit());
	const finished = () => {
		const every = `every ${walk.unitKind === 'claims' ? 'claim' : 'sentence'}${walk.partial ? ' of your sample' : ''}`;
		return `${every} is judged${reportHint ? `; see the results with ${reportHint}` : ''}`;
	};
	const allJudged = () => {
		const mine = faithfulnessVerdictsOf(walk.verdicts, walk.validator);
		return walk.units.every((u) => faithfulnessVerdictOn(mine, u));
	};
	const perform = (effect: FaithfulnessEffect, dispatch: (msg: FaithfulnessMsg) => void): void => {
		switch (effect.kind) {
			case 'quit':
				return quit();
			case 'back':
				return onBack ? onBack() : quit();
			case 'mark':
				// Checked once the verdict is saved, so quick presses still end on the walk's last word.
				return reportSave(
					walk.mark(walk.units[effect.unit]!, effect.label, effect.note),
					() => (allJudged() ? `${effect.done} · ${finished()}` : effect.done),
					dispatch,
					program,
				);
			case 'rate':
				return reportSave(walk.rate(effect.summary, effect.rating), () => effect.done, dispatch, program);
			case 'undo':
				return reportSave(
					walk.undo(),
					(undone) => (undone ? 'undone' : 'nothing to undo'),
					dispatch,
					program,
				);
			case 'units': {
				const now = walk.switchUnits();
				if (now === null)
					return dispatch({
						type: 'done',
						message: `no claims to judge yet: a model judge splits the sentences into claims (${commandLine(program, 'faithfulness ID')})`,
					});
				return dispatch({
					type: 'switched',
					index: firstUnjudgedUnit(walk.units, walk.verdicts, walk.validator),
					message:
						now === 'claims'
							? `judging the claims ${walk.claimJudge ?? 'a model'} split the sentences into; s: whole sentences again`
							: 'judging whole sentences; s: claims',
				});
			}
		}
	};
	// The walk opens on the first sentence not judged yet.
	const start = () => init(firstUnjudgedUnit(units, walk.verdicts, walk.validator));
	const ui = useKeyedModel({ init: start, update }, world, perform, (state) => screenOf(state.overlay));

	if (ui.overlay.kind === 'help')
		return (
			<Help screen="faithfulness" width={columns} height={Math.max(3, rows - 1)} scroll={ui.overlay.scroll} />
		);
	const width = Math.max(20, columns - 2);
	if (units.length === 0) {
		return (
			<Box flexDirection="column">
				<Text>{clean(title)}: no summary sentences to judge.</Text>
				<Text color={theme.color('muted')}>q quit</Text>
			</Box>
		);
	}

	const index = Math.min(ui.index, units.length - 1);
	const unit = units[index]!;
	const summary = walk.summary(unit.summary);
	const mine = faithfulnessVerdictsOf(walk.verdicts, walk.validator);
	const verdict = faithfulnessVerdictOn(mine, unit);
	const judged = units.filter((u) => faithfulnessVerdictOn(mine, u)).length;
	const tally = { faithful: 0, partial: 0, unfaithful: 0, unsure: 0 };
	for (const u of units) {
		const v = faithfulnessVerdictOn(mine, u);
		if (v) tally[v.label] += 1;
	}
	const claims = walk.unitKind === 'claims';
	const rating = walk.ratings().get(unit.summary)?.rating ?? null;
	// LongEval's coarse rating is asked before the fine verdicts, so that they do not inform it.
	const ask = rating === null && ![...mine.values()].some((v) => v.summary === unit.summary);
	const evidence = evidenceFor?.(unit);
	// Evidence gets up to a third of the terminal; the summary pane takes what is left.
	const evidenceRows = evidence && evidence.length > 0 ? Math.max(3, Math.floor(rows / 3)) : 0;
	const fixed =
		1 +
		1 +
		1 +
		1 +
		(ask ? 1 : 0) +
		(claims ? 1 : 0) +
		walkFootRows(ui.overlay.kind === 'note' ? ui.overlay.field : null, ui.message ?? null) +
		1 +
		evidenceRows;
	const paneHeight = Math.max(1, rows - 1 - fixed - 2);
	const span = sentencesOf(unit.summary)[unit.sentence];
	const inSummary = `sentence ${unit.sentence + 1}/${sentencesOf(unit.summary).length} of the summary`;
	const place = walk.partial
		? `${claims ? 'claim' : 'sentence'} ${index + 1} of ${units.length} in your sample · ${inSummary}`
		: claims
			? `claim ${index + 1}/${units.length} · claim ${unit.claim!.index + 1} of sentence ${unit.sentence + 1}`
			: `sentence ${index + 1}/${units.length}`;

	return (
		<Box flexDirection="column" width={columns}>
			<Text bold wrap="truncate">
				{truncate(`Faithfulness · ${clean(title)} · validator ${clean(walk.validator)}`, width)}
			</Text>
			<Text wrap="truncate" color={theme.color('accent')}>
				{truncate(
					`judged ${judged}/${units.length}${rating === null ? '' : ` · whole summary rated ${rating}/5`} · ` +
						`${judged === 0 ? DASH : `${shareOf(tally.faithful, judged)}%`} of them faithful ` +
						`(${tally.faithful} faithful, ${tally.partial} partial, ${tally.unfaithful} unfaithful, ${tally.unsure} can't tell)`,
					width,
				)}
			</Text>
			{ask ? (
				<Text wrap="truncate" color={theme.color('accent')}>
					{truncate(
						'first, optionally, rate the whole summary 1–5: 1 most or all of it wrong or not in the book … 5 most or all of it in the book',
						width,
					)}
				</Text>
			) : null}
			<MarkedSummary
				text={summary?.text ?? ''}
				spans={span ? [span] : []}
				width={width}
				height={paneHeight}
			/>
			<Text wrap="truncate">{truncate(`${place} · ${clean(summary?.book ?? '')}`, width)}</Text>
			{claims ? (
				<Text bold wrap="truncate">
					{truncate(`claim: ${clean(unit.claim!.text)}`, width)}
				</Text>
			) : null}
			<Text wrap="truncate" color={verdict ? theme.color(LABEL_TONE[verdict.label]) : theme.color('muted')}>
				{truncate(
					verdict
						? `your verdict: ${FAITHFULNESS_WORD[verdict.label]}${verdict.note ? ` · note: ${clean(verdict.note)}` : ''}`
						: 'not judged yet',
					width,
				)}
			</Text>
			<EvidencePane evidence={evidence ? [...evidence] : undefined} rows={evidenceRows} width={width} />
			<WalkFoot
				note={ui.overlay.kind === 'note' ? ui.overlay.field : null}
				message={ui.message ?? null}
				width={width}
				screen={screenOf(ui.overlay)}
			/>
		</Box>
	);
}
