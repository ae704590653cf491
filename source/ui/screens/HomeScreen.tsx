import { Box, Text, useInput } from 'ink';
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../errors.ts';
import type { SessionListing, SessionSummary } from '../../store/list.ts';
import { Footer } from '../components/Footer.tsx';
import { Help } from '../components/Help.tsx';
import { useTerminalSize } from '../hooks.ts';
import { actionFor, type Screen } from '../keymap.ts';
import { FIELD_LABELS, FIELDS, formInput, formKey, formOf, isChoice, type FormDefaults, type FormState, type NewRunInput } from '../state/form.ts';
import { clean, textWidth, truncate, windowOf } from '../text.ts';
import { useTheme } from '../theme.ts';

export type HomeChoice = { kind: 'open' | 'resume' | 'validate'; id: string } | { kind: 'new'; input: NewRunInput } | { kind: 'quit' };

export interface HomeScreenProps {
	sessionsDir: string;
	/** Reads the saved sessions (again after a delete). */
	load: () => Promise<SessionListing>;
	remove: (id: string) => Promise<void>;
	/** Why the form's values cannot start a run (a missing book, a bad size), or null. */
	check: (input: NewRunInput) => Promise<string | null>;
	defaults: FormDefaults;
	onChoose: (choice: HomeChoice) => void;
}

type Mode = 'list' | 'confirm' | 'form' | 'help';

const STATUS_WORDS: Record<string, string> = { planned: 'not started', running: 'interrupted', paused: 'paused', done: 'done', failed: 'failed', cancelled: 'stopped', imported: 'imported' };

/** `booook` alone: the saved sessions, to open, resume or delete, and a form for a new run. */
export function HomeScreen({ sessionsDir, load, remove, check, defaults, onChoose }: HomeScreenProps) {
	const theme = useTheme();
	const { columns: width, rows } = useTerminalSize();
	const [listing, setListing] = useState<SessionListing | null>(null);
	const [cursor, setCursor] = useState(0);
	const [mode, setMode] = useState<Mode>('list');
	const [form, setForm] = useState<FormState>(() => formOf(defaults));
	const [message, setMessage] = useState<string | null>(null);
	const [helpScroll, setHelpScroll] = useState(0);
	const busy = useRef(false);

	const reload = () =>
		load()
			.then((l) => {
				setListing(l);
				setCursor((c) => Math.min(c, Math.max(0, l.length - 1)));
			})
			.catch((error: unknown) => setMessage(clean(`Cannot read ${sessionsDir}: ${errorMessage(error)}`)));
	useEffect(() => {
		void reload();
	}, []);

	const sessions = listing ?? [];
	const selected: SessionSummary | undefined = sessions[cursor];
	const screen: Screen = mode === 'list' ? 'home' : mode;
	// Keys read the newest state through this ref: one can arrive before the handler of the newest
	// render is attached.
	const latest = useRef({ sessions, selected, screen, mode, form });
	latest.current = { sessions, selected, screen, mode, form };

	const submit = () => {
		const input = formInput(latest.current.form);
		if ('error' in input) return setMessage(input.error);
		if (busy.current) return;
		busy.current = true;
		check(input)
			.then((problem) => {
				if (problem) setMessage(clean(problem));
				else onChoose({ kind: 'new', input });
			})
			.catch((error: unknown) => setMessage(clean(errorMessage(error))))
			.finally(() => {
				busy.current = false;
			});
	};

	useInput((input, key) => {
		const { sessions, selected, screen, mode } = latest.current;
		const action = actionFor(screen, { ...key, input });
		if (action === 'quit') return onChoose({ kind: 'quit' });
		setMessage(null);
		if (mode === 'help') {
			if (action === 'back' || action === 'help') setMode('list');
			else if (action === 'up') setHelpScroll((s) => Math.max(0, s - 1));
			else if (action === 'down') setHelpScroll((s) => s + 1);
			else if (action === 'scrollUp') setHelpScroll((s) => Math.max(0, s - rows + 4));
			else if (action === 'scrollDown') setHelpScroll((s) => s + rows - 4);
			return;
		}
		if (mode === 'confirm') {
			if (action === 'confirm' && selected) {
				setMode('list');
				remove(selected.id)
					.then(() => setMessage(clean(`Deleted session ${selected.id}.`)))
					.catch((error: unknown) => setMessage(clean(`Not deleted: ${errorMessage(error)}`)))
					.finally(() => void reload());
			} else if (action === 'cancel') setMode('list');
			return;
		}
		if (mode === 'form') {
			if (action === 'cancel') return setMode('list');
			if (action === 'save' || action === 'open') return submit();
			if (action) return setForm((f) => formKey(f, { action }, defaults));
			if (key.backspace || key.delete) return setForm((f) => formKey(f, { backspace: true }, defaults));
			if (input && !key.ctrl && !key.meta) setForm((f) => formKey(f, { type: clean(input) }, defaults));
			return;
		}
		switch (action) {
			case 'help':
				setHelpScroll(0);
				return setMode('help');
			case 'up':
				return setCursor((c) => Math.max(0, c - 1));
			case 'down':
				return setCursor((c) => Math.min(Math.max(0, sessions.length - 1), c + 1));
			case 'validate':
				if (selected) onChoose({ kind: 'validate', id: selected.id });
				return;
			case 'open':
			case 'resume':
				// A collection has nothing to run: opening it walks its annotations.
				if (selected?.kind === 'collection') return onChoose({ kind: 'validate', id: selected.id });
				if (selected) onChoose({ kind: action, id: selected.id });
				return;
			case 'delete':
				if (selected) setMode('confirm');
				return;
			case 'newRun':
				setForm(formOf(defaults));
				return setMode('form');
			case 'score':
				return setMessage('Open a finished session first (enter), then press b on its run screen.');
		}
	});

	const bodyRows = Math.max(3, rows - 5);
	let body;
	if (mode === 'help') body = <Help screen="home" width={width} height={bodyRows} scroll={helpScroll} />;
	else if (mode === 'form') body = <NewRunForm form={form} width={width} />;
	else if (listing === null) body = <Text dimColor>Reading {clean(sessionsDir)}…</Text>;
	else if (sessions.length === 0) {
		body = (
			<Box flexDirection="column">
				<Text>{clean(`No saved sessions in ${sessionsDir}.`)}</Text>
				<Text>Press n to start a new run here, or from a shell: booook run BOOK.txt (add --method inc for incremental updating).</Text>
			</Box>
		);
	} else body = <SessionTable sessions={sessions} cursor={cursor} width={width} height={bodyRows - (listing.problems.length > 0 ? 1 : 0)} />;

	return (
		<Box flexDirection="column" width={width}>
			<Text bold color={theme.color('accent')} wrap="truncate-end">
				{clean(`booook · saved sessions in ${sessionsDir}`)}
			</Text>
			{body}
			{mode === 'list' && listing && listing.problems.length > 0 ? (
				<Text color={theme.color('warn')} wrap="truncate-end">
					{clean(`${listing.problems.length} session${listing.problems.length === 1 ? '' : 's'} could not be read: ${listing.problems.map((p) => `${p.id} (${p.reason})`).join('; ')}`)}
				</Text>
			) : null}
			{mode === 'confirm' && selected ? (
				<Text color={theme.color('warn')} bold wrap="truncate-end">
					{clean(`Delete session ${selected.id} (${selected.title})? Its files are removed for good. y yes · n no`)}
				</Text>
			) : (
				<Text color={theme.color('accent')} wrap="truncate-end">
					{message ?? ' '}
				</Text>
			)}
			<Footer screen={screen} hide={['score']} />
		</Box>
	);
}

function SessionTable({ sessions, cursor, width, height }: { sessions: readonly SessionSummary[]; cursor: number; width: number; height: number }) {
	const fixed = 6 + 16 + 14 + 7 + 16 + 5;
	const titleWidth = Math.max(10, width - fixed);
	const pad = (text: string, w: number) => {
		const t = truncate(text, w);
		return t + ' '.repeat(Math.max(0, w - textWidth(t)));
	};
	const line = (s: SessionSummary) => {
		const progress = `${STATUS_WORDS[s.status] ?? s.status} ${s.progress.done}/${s.progress.total}`;
		return [pad(clean(s.title), titleWidth), pad(s.method ?? '—', 5), pad(clean(s.model ?? '—'), 15), pad(progress, 13), pad(s.booookscore === undefined ? '—' : s.booookscore.toFixed(1), 6), s.openedAt.replace('T', ' ').slice(0, 16)].join(' ');
	};
	const shown = windowOf(sessions.map((s, i) => ({ s, i })), height - 1, Math.max(0, cursor - Math.floor((height - 1) / 2)));
	return (
		<Box flexDirection="column">
			<Text bold wrap="truncate-end">
				{`  ${[pad('book', titleWidth), pad('method', 5), pad('model', 15), pad('progress', 13), pad('score', 6), 'last opened'].join(' ')}`}
			</Text>
			{shown.lines.map(({ s, i }) => (
				<Text key={s.id} inverse={i === cursor} wrap="truncate-end">
					{`${i === cursor ? '›' : ' '} ${line(s)}`}
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
				const value = clean(String(form[field]));
				const shown = isChoice(field) ? `‹ ${value} ›` : `${value}${focused ? '▌' : ''}`;
				return (
					<Text key={field} wrap="truncate-end">
						<Text color={focused ? theme.color('accent') : undefined} bold={focused}>{`${focused ? '›' : ' '} ${FIELD_LABELS[field].padEnd(labelWidth)}`}</Text>
						<Text inverse={focused && isChoice(field)}>{truncate(shown, Math.max(8, width - labelWidth - 3))}</Text>
					</Text>
				);
			})}
			<Text dimColor>{form.method === 'hier' ? 'hierarchical merging: chunk summaries merged level by level' : 'incremental updating: one running summary updated chunk by chunk'}</Text>
		</Box>
	);
}
