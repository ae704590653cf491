import { Box, Text } from 'ink';
import { useEffect, useEffectEvent, useState } from 'react';
import { errorMessage } from '../../../errors.ts';
import type { SessionListing, SessionSummary } from '../../../app/list-sessions.ts';
import { Footer } from '../../components/Footer.tsx';
import { Help } from '../../components/Help.tsx';
import { TextField } from '../../components/TextField.tsx';
import { useModel, useTerminalSize } from '../../hooks.ts';
import { useKeys } from '../../keys/KeysProvider.tsx';
import {
	homeScreen,
	init,
	update,
	visible,
	type HomeChoice,
	type HomeEffect,
	type HomeMsg,
	type HomeQuestion,
	type HomeState,
	type HomeWorld,
} from './model.ts';
import {
	FIELD_LABELS,
	FIELDS,
	formField,
	type FormDefaults,
	type FormState,
	type NewRunInput,
} from './form.ts';
import { sessionColumns } from '../../../format/sessions.ts';
import { layoutTable } from '../../../format/table.ts';
import { clean, cutLines, textWidth, truncate, windowOf, wrap } from '../../../format/text.ts';
import { useTheme } from '../../theme.ts';
import { commandLine, say as sayIn, type Said } from '../../../program.ts';
import { useProgram } from '../../program-context.ts';
import { counted } from '../../../format/count.ts';

export type { HomeChoice, HomeQuestion } from './model.ts';

export interface HomeScreenProps {
	sessionsDir: string;
	/** Reads the saved sessions (again after a delete). */
	load: () => Promise<SessionListing>;
	remove: (id: string) => Promise<void>;
	/** Why the form's values cannot start a run (a missing book, a bad size), or null. */
	check: (input: NewRunInput) => Promise<Said | null>;
	/** Why the session last chosen could not be opened (a missing key, a lock), shown on the list. */
	notice?: string;
	/** Asked first, instead of the list's keys: y or n is the choice. */
	question?: HomeQuestion;
	defaults: FormDefaults;
	onChoose: (choice: HomeChoice) => void;
}

/** `booook` alone: the saved sessions, to open, resume or delete, and a form for a new run. */
export function HomeScreen({
	sessionsDir,
	load,
	remove,
	check,
	defaults,
	notice,
	question,
	onChoose,
}: HomeScreenProps) {
	const theme = useTheme();
	const program = useProgram();
	const { columns: width, rows } = useTerminalSize();
	const [listing, setListing] = useState<SessionListing | null>(null);
	// The help has the rows of the list with one line of message under it.
	const helpRows = Math.max(3, rows - 5);

	const say = (dispatch: (msg: HomeMsg) => void) => (message: string) =>
		dispatch({ type: 'say', message: clean(message) });
	const reload = (tell: (message: string) => void) =>
		load()
			.then(setListing)
			.catch((error: unknown) => tell(`Cannot read ${sessionsDir}: ${errorMessage(error, program)}`));
	const [ui, dispatch] = useModel(
		{ init: () => ({ ...init(defaults, question ?? null), message: notice ?? null }), update },
		(): HomeWorld => ({ sessions: listing, defaults, page: helpRows - 1 }),
		(effect: HomeEffect, dispatch: (msg: HomeMsg) => void) => {
			const tell = say(dispatch);
			switch (effect.kind) {
				case 'choose':
					return onChoose(effect.choice);
				case 'delete':
					return void remove(effect.id)
						.then(() => tell(`Deleted session ${effect.id}.`))
						.catch((error: unknown) => tell(`Not deleted: ${errorMessage(error, program)}`))
						.finally(() => void reload(tell));
				case 'check':
					return void check(effect.input)
						.then((problem) =>
							problem ? tell(sayIn(problem, program)) : onChoose({ kind: 'new', input: effect.input }),
						)
						.catch((error: unknown) => tell(errorMessage(error, program)))
						.finally(() => dispatch({ type: 'checked' }));
			}
		},
	);
	const loadOnce = useEffectEvent(() => void reload(say(dispatch)));
	useEffect(() => loadOnce(), []);
	useKeys((press) => dispatch({ type: 'press', press }));

	const sessions = visible(listing ?? [], ui.filter.text);
	const cursor = Math.min(ui.cursor, Math.max(0, sessions.length - 1));
	const selected: SessionSummary | undefined = sessions[cursor];
	const filterLine = ui.mode === 'filter' || ui.filter.text ? 1 : 0;
	const bottom = bottomLines(ui, selected, width);
	// A long message (a refusal, a warning) wraps, and the rows it takes are the list's.
	const bodyRows = Math.max(3, rows - 4 - bottom.lines.length);
	const count = ` ${sessions.length} of ${listing?.length ?? 0}`;
	let body;
	if (ui.mode === 'help')
		body = <Help screen="home" width={width} height={helpRows} scroll={ui.helpScroll} />;
	else if (ui.mode === 'form') body = <NewRunForm form={ui.form} width={width} />;
	else if (listing === null) body = <Text dimColor>Reading {clean(sessionsDir)}…</Text>;
	else if (listing.length === 0) {
		body = (
			<Box flexDirection="column">
				<Text>{clean(`No saved sessions in ${sessionsDir}.`)}</Text>
				<Text>
					Press n to start a new run here, or from a shell: {commandLine(program, 'run BOOK.txt')} (add
					--method inc for incremental updating).
				</Text>
			</Box>
		);
	} else if (sessions.length === 0)
		body = <Text>{clean(`No session matches "${ui.filter.text}" (esc clears the filter).`)}</Text>;
	else
		body = (
			<SessionTable
				sessions={sessions}
				cursor={cursor}
				width={width}
				height={bodyRows - filterLine - (listing.problems.length > 0 ? 1 : 0)}
			/>
		);

	return (
		<Box flexDirection="column" width={width}>
			<Text bold color={theme.color('accent')} wrap="truncate-end">
				{clean(`booook · saved sessions in ${sessionsDir}`)}
			</Text>
			{(ui.mode === 'list' || ui.mode === 'filter') && filterLine ? (
				<Text wrap="truncate-end">
					<TextField
						label="/"
						field={ui.filter}
						width={Math.max(10, width - textWidth(count))}
						cursor={ui.mode === 'filter'}
					/>
					<Text dimColor>{count}</Text>
				</Text>
			) : null}
			{body}
			{ui.mode === 'list' && listing && listing.problems.length > 0 ? (
				<Text color={theme.color('warn')} wrap="truncate-end">
					{clean(
						`${counted(listing.problems.length, 'session')} could not be read: ` +
							listing.problems.map((p) => `${p.id} (${sayIn(p.reason, program)})`).join('; '),
					)}
				</Text>
			) : null}
			{bottom.lines.map((line, i) => (
				<Text
					key={i}
					color={theme.color(bottom.question ? 'warn' : 'accent')}
					bold={bottom.question}
					wrap="truncate-end"
				>
					{line}
				</Text>
			))}
			<Footer screen={homeScreen(ui)} hide={['score']} />
		</Box>
	);
}

/** Rows of messages taken from the list at most (a lost-work warning runs to about five at 80 columns). */
const MESSAGE_ROWS = 6;

/** The lines under the list: a question asked (y or n), else the message, if any. */
function bottomLines(
	ui: HomeState,
	selected: SessionSummary | undefined,
	width: number,
): { lines: readonly string[]; question: boolean } {
	const wrapped = (text: string) => cutLines(wrap(clean(text), width), MESSAGE_ROWS, width);
	if (ui.mode === 'confirm' && ui.question)
		return {
			lines: wrapped(
				`warning: ${ui.question.warning} Open session ${ui.question.id} all the same? y yes · n no`,
			),
			question: true,
		};
	if (ui.mode === 'confirm' && selected)
		return {
			lines: [
				clean(
					`Delete session ${selected.id} (${selected.title})? Its files are removed for good. y yes · n no`,
				),
			],
			question: true,
		};
	return { lines: ui.message ? wrapped(ui.message) : [' '], question: false };
}

function SessionTable({
	sessions,
	cursor,
	width,
	height,
}: {
	sessions: readonly SessionSummary[];
	cursor: number;
	width: number;
	height: number;
}) {
	// Two columns go to the cursor mark; the rest is laid out from the cells (see format/table.ts).
	const table = layoutTable(sessionColumns(sessions), width - 2, 1);
	const shown = windowOf(
		sessions.map((s, i) => ({ s, i })),
		height - 1,
		Math.max(0, cursor - Math.floor((height - 1) / 2)),
	);
	return (
		<Box flexDirection="column">
			<Text bold wrap="truncate-end">
				{`  ${table.header}`}
			</Text>
			{shown.lines.map(({ s, i }) => (
				<Text key={s.id} inverse={i === cursor} wrap="truncate-end">
					{`${i === cursor ? '›' : ' '} ${table.rows[i]}`}
				</Text>
			))}
		</Box>
	);
}

function NewRunForm({ form, width }: { form: FormState; width: number }) {
	const theme = useTheme();
	const labelWidth = Math.max(...FIELDS.map((f) => FIELD_LABELS[f].length)) + 2;
	return (
		<Box flexDirection="column">
			<Text bold>New run · ↑↓ or tab move · ←→ change a choice · enter or ctrl-s start · esc back</Text>
			{FIELDS.map((field) => {
				const focused = form.focus === field;
				const room = Math.max(8, width - labelWidth - 3);
				const text = formField(form, field);
				return (
					<Text key={field} wrap="truncate-end">
						<Text
							color={focused ? theme.color('accent') : undefined}
							bold={focused}
						>{`${focused ? '›' : ' '} ${FIELD_LABELS[field].padEnd(labelWidth)}`}</Text>
						{text ? (
							<TextField field={text} width={room} cursor={focused} />
						) : (
							<Text inverse={focused}>{truncate(`‹ ${clean(String(form[field]))} ›`, room)}</Text>
						)}
					</Text>
				);
			})}
			<Text dimColor wrap="truncate-end">
				{form.focus === 'baseUrl'
					? serverHint(form.provider)
					: form.method === 'hier'
						? 'hierarchical merging: chunk summaries merged level by level'
						: 'incremental updating: one running summary updated chunk by chunk'}
			</Text>
		</Box>
	);
}

/** What the base URL field is for, read while it is being typed. */
function serverHint(provider: FormState['provider']): string {
	switch (provider) {
		case 'openai':
			return "an OpenAI-compatible server, e.g. http://localhost:8000/v1; empty: OpenAI's API";
		case 'anthropic':
			return "an Anthropic-style server, e.g. http://localhost:8000; empty: Anthropic's API";
		case 'extractive':
			return 'the extractive baseline calls no server';
	}
}
