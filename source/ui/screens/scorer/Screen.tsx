import { Box, Text } from 'ink';
import type { ScorerChoice, ScorerQuestion } from '../../../app/score-model.ts';
import { errorMessage } from '../../../errors.ts';
import { counted } from '../../../format/count.ts';
import { Footer } from '../../components/Footer.tsx';
import { TextField } from '../../components/TextField.tsx';
import { useModel, useTerminalSize } from '../../hooks.ts';
import { useKeys } from '../../keys/KeysProvider.tsx';
import { clean, cutLines, truncate, wrap } from '../../../format/text.ts';
import { useTheme } from '../../theme.ts';
import {
	init,
	scoreCommand,
	SCORER_FIELDS,
	SCORER_LABELS,
	update,
	type ScorerEffect,
	type ScorerMsg,
} from './model.ts';
import { useProgram } from '../../program-context.ts';

export interface ScorerScreenProps {
	question: ScorerQuestion;
	/** What was chosen the last time this run's scoring was asked about: the fields start from it. */
	last?: ScorerChoice | null;
	/** Sets up the scoring by `choice`; resolves once it is shown, rejects with why it cannot start. */
	start: (choice: ScorerChoice) => Promise<void>;
	onBack: () => void;
	onQuit: () => void;
}

/** Rows a refusal may take (a missing key's line runs to three at 80 columns). */
const MESSAGE_ROWS = 4;

/** `b` on a run with no model of its own: which model, of which provider, at which server, scores it. */
export function ScorerScreen({ question, last = null, start, onBack, onQuit }: ScorerScreenProps) {
	const theme = useTheme();
	const program = useProgram();
	const { columns: width } = useTerminalSize();
	const [state, dispatch] = useModel(
		{ init: () => init(question, last), update },
		() => question,
		(effect: ScorerEffect, send: (msg: ScorerMsg) => void) => {
			switch (effect.kind) {
				case 'quit':
					return onQuit();
				case 'back':
					return onBack();
				case 'start':
					return void start(effect.choice).catch((error: unknown) =>
						send({ type: 'refused', message: errorMessage(error, program) }),
					);
			}
		},
	);
	useKeys((press) => dispatch({ type: 'press', press }));
	const labelWidth = Math.max(...SCORER_FIELDS.map((f) => SCORER_LABELS[f].length)) + 2;
	const room = Math.max(8, width - labelWidth - 3);
	const n = question.sentences;
	const message = state.message ? cutLines(wrap(clean(state.message), width), MESSAGE_ROWS, width) : [];
	return (
		<Box flexDirection="column" width={width}>
			<Text bold color={theme.color('accent')} wrap="truncate-end">
				BooookScore · which model annotates the final summary?
			</Text>
			{wrap(
				`The extractive baseline is no LLM: its ${counted(n, 'sentence')} without a verdict ${n === 1 ? 'needs' : 'need'} a model's.`,
				width,
			).map((line, i) => (
				<Text key={i}>{line}</Text>
			))}
			<Text> </Text>
			{SCORER_FIELDS.map((field) => {
				const focused = state.focus === field;
				return (
					<Text key={field} wrap="truncate-end">
						<Text color={focused ? theme.color('accent') : undefined} bold={focused}>
							{`${focused ? '›' : ' '} ${SCORER_LABELS[field].padEnd(labelWidth)}`}
						</Text>
						{field === 'provider' ? (
							<Text inverse={focused}>{`‹ ${state.provider} ›`}</Text>
						) : (
							<TextField field={state[field]} width={room} cursor={focused} />
						)}
					</Text>
				);
			})}
			<Text dimColor wrap="truncate-end">
				{state.provider === 'openai'
					? "an OpenAI-compatible server, e.g. http://localhost:8000/v1; empty: OpenAI's API"
					: "an Anthropic-style server, e.g. http://localhost:8000; empty: Anthropic's API"}
			</Text>
			<Text> </Text>
			{wrap(clean(`from a shell: ${scoreCommand(state, question, program)}`), width).map((line, i) => (
				<Text key={i} dimColor>
					{truncate(line, width)}
				</Text>
			))}
			{state.starting ? <Text color={theme.color('accent')}>Setting up the scoring…</Text> : null}
			{message.map((line, i) => (
				<Text key={i} color={theme.color('warn')} wrap="truncate-end">
					{line}
				</Text>
			))}
			<Footer screen="form" />
		</Box>
	);
}
