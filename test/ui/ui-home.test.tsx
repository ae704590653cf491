import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionListing, SessionSummary } from '../../source/app/list-sessions.ts';
import { HomeScreen, type HomeChoice } from '../../source/ui/screens/home/Screen.tsx';
import type { FormDefaults, NewRunInput } from '../../source/ui/screens/home/form.ts';
import { textWidth } from '../../source/format/text.ts';
import { unstyled } from '../support/ansi.ts';
import { KEYS } from '../support/keys.ts';
import { pressKeys, renderScreen, resize, until } from '../support/screen.tsx';

const defaults: FormDefaults = {
	method: 'hier',
	provider: 'extractive',
	models: { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-6', extractive: 'textrank' },
	baseUrls: { openai: 'http://localhost:8000/v1', anthropic: '', extractive: '' },
	chunkSize: 2048,
};

function summary(id: string, title: string, fields: Partial<SessionSummary> = {}): SessionSummary {
	const at = '2026-01-02T03:04:05.000Z';
	return {
		id,
		kind: 'book',
		title,
		method: 'hier',
		provider: 'openai',
		model: 'gpt-4o-mini',
		status: 'done',
		progress: { done: 7, total: 7 },
		createdAt: at,
		updatedAt: at,
		openedAt: at,
		...fields,
	} as SessionSummary;
}

async function mount(
	initial: SessionSummary[],
	check: (input: NewRunInput) => Promise<string | null> = async () => null,
) {
	let sessions = [...initial];
	const removed: string[] = [];
	const choices: HomeChoice[] = [];
	const checked: NewRunInput[] = [];
	const r = renderScreen(
		<HomeScreen
			sessionsDir="/tmp/sessions"
			load={async () => Object.assign([...sessions], { problems: [] }) as SessionListing}
			remove={async (id) => {
				removed.push(id);
				sessions = sessions.filter((s) => s.id !== id);
			}}
			check={async (input) => {
				checked.push(input);
				return check(input);
			}}
			defaults={defaults}
			onChoose={(c) => choices.push(c)}
		/>,
	);
	// A key is handled as it is written (the screen's state changes at once; the frame follows).
	const press = async (key: string) => {
		r.stdin.write(key);
	};
	const frame = () => r.lastFrame() ?? '';
	// Ink listens for keys from an effect after the first frame: `until` waits for it.
	await until(frame, (f) => f.includes('booook'), 'the first frame');
	return { r, press, removed, choices, checked, frame };
}

test('an empty list says how to start', async () => {
	const { frame, r } = await mount([]);
	await until(frame, (f) => f.includes('No saved sessions') && f.includes('booook run'), 'the empty list');
	r.unmount();
});

test('sessions are listed with book, method, model and progress; enter opens, r resumes', async () => {
	const { frame, press, choices, r } = await mount([
		summary('pride-1', 'Pride and Prejudice'),
		summary('war-2', 'War and Peace', {
			method: 'inc',
			model: 'claude-x',
			status: 'cancelled',
			progress: { done: 3, total: 40 },
		}),
	]);
	const f = await until(frame, (x) => x.includes('War and Peace'), 'the list');
	assert.match(f, /Pride and Prejudice\s+hier\s+gpt-4o-mini\s+done 7\/7\s+—/u);
	assert.match(f, /War and Peace\s+inc\s+claude-x\s+stopped 3\/40/u);
	await press(KEYS.enter);
	await press(KEYS.down);
	await press('r');
	assert.deepEqual(choices, [
		{ kind: 'open', id: 'pride-1' },
		{ kind: 'resume', id: 'war-2' },
	]);
	r.unmount();
});

test('delete asks first: n keeps the session, y removes it and the list is read again', async () => {
	const { frame, press, removed, r } = await mount([summary('a-1', 'Alpha'), summary('b-2', 'Beta')]);
	await until(frame, (f) => f.includes('Beta'), 'the list');
	await press('d');
	await until(frame, (f) => f.includes('Delete session a-1'), 'the question');
	await press('n');
	assert.deepEqual(removed, []);
	await press('d');
	await press('y');
	await until(frame, (f) => f.includes('Deleted session a-1') && !f.includes('Alpha'), 'the list without it');
	assert.deepEqual(removed, ['a-1']);
	r.unmount();
});

test('the new-run form shows its defaults, reports a bad book, and starts with what was typed', async () => {
	let problem: string | null = 'cannot read /nope.txt: no such file';
	const { frame, press, choices, checked, r } = await mount([], async () => problem);
	await press('n');
	const f = await until(frame, (x) => x.includes('New run'), 'the form');
	assert.match(f, /method\s+‹ hier ›/u);
	assert.match(f, /provider\s+‹ extractive ›/u);
	assert.match(f, /model\s+textrank/u);
	assert.match(f, /chunk size \(tokens\)\s+2048/u);
	await press('/nope.txt');
	await press(KEYS.enter);
	await until(frame, (x) => x.includes('cannot read /nope.txt'), 'the problem');
	assert.equal(choices.length, 0);
	problem = null;
	await press(KEYS.down); // method
	await press(KEYS.right); // inc
	await press(KEYS.down); // provider
	await press(KEYS.left); // anthropic
	await until(frame, (x) => x.includes('claude-sonnet-4-6'), 'the provider default model');
	await press(KEYS.ctrlS);
	await until(
		() => String(choices.length),
		(x) => x === '1',
		'the choice',
	);
	assert.deepEqual(checked.at(-1), {
		book: '/nope.txt',
		method: 'inc',
		provider: 'anthropic',
		model: 'claude-sonnet-4-6',
		baseUrl: null,
		chunkSize: 2048,
	});
	assert.deepEqual(choices, [{ kind: 'new', input: checked.at(-1) }]);
	r.unmount();
});

test("the new-run form's base URL: the environment's server of each provider, or one typed, checked in the form's words, at 80×24", async () => {
	const { frame, press, choices, checked, r } = await mount([]);
	resize(r, 80, 24);
	await press('n');
	await until(frame, (x) => x.includes('New run'), 'the form');
	await press('book.txt');
	await press(KEYS.down); // method
	await press(KEYS.down); // provider
	await press(KEYS.left); // anthropic
	await press(KEYS.left); // openai
	let f = await until(frame, (x) => /provider\s+‹ openai ›/u.test(x), 'openai');
	assert.match(f, /base URL \(server\)\s+http:\/\/localhost:8000\/v1/u, "the environment's server");
	await press(KEYS.down); // model
	await press(KEYS.down); // base URL
	f = await until(frame, (x) => x.includes("empty: OpenAI's API"), 'what the field is for');
	assert.ok(f.split('\n').every((l) => textWidth(l) <= 80) && f.split('\n').length <= 24, f);
	for (let i = 0; i < 'http://localhost:8000/v1'.length; i++) await press(KEYS.backspace);
	await press('llm.lan:8000');
	await press(KEYS.enter);
	await until(
		frame,
		(x) => x.includes('The base URL llm.lan:8000: booook talks to a server over HTTP'),
		'refused',
	);
	assert.equal(checked.length, 0, 'refused before the check');
	for (let i = 0; i < 'llm.lan:8000'.length; i++) await press(KEYS.backspace);
	await press('http://llm.lan:8000/v1');
	await press(KEYS.up); // model
	await press(KEYS.up); // provider
	await press(KEYS.left); // extractive
	await press(KEYS.left); // anthropic
	await until(
		frame,
		(x) => /base URL \(server\)\s+http:\/\/llm\.lan:8000\/v1/u.test(x) && x.includes('claude'),
		'typed, it stays',
	);
	await press(KEYS.enter);
	await until(
		() => String(choices.length),
		(x) => x === '1',
		'the choice',
	);
	assert.equal(checked.at(-1)!.provider, 'anthropic');
	assert.equal(checked.at(-1)!.baseUrl, 'http://llm.lan:8000/v1');
	r.unmount();
});

test('j and k move like the arrows; / filters the list by what is typed, enter keeps the filter, esc clears it', async () => {
	const { frame, press, choices, r } = await mount([
		summary('pride-1', 'Pride and Prejudice'),
		summary('war-2', 'War and Peace', { method: 'inc' }),
		summary('emma-3', 'Emma', { model: 'claude-x' }),
	]);
	await until(frame, (f) => f.includes('Emma'), 'the list');
	await press('jjk');
	await press(KEYS.enter);
	assert.deepEqual(choices.at(-1), { kind: 'open', id: 'war-2' }, 'down, down, up: the second session');
	// Typed in one burst: the / opens the filter and the rest is its text.
	await press('/claude');
	let f = await until(
		frame,
		(x) => x.includes('/claude') && !x.includes('War and Peace'),
		'the filtered list',
	);
	assert.match(f, /Emma/u);
	assert.match(f, /1 of 3/u);
	await press(KEYS.enter);
	await press(KEYS.enter);
	assert.deepEqual(
		choices.at(-1),
		{ kind: 'open', id: 'emma-3' },
		'enter opens the one session the filter lets through',
	);
	await press('/');
	await press(KEYS.backspace.repeat(6) + 'inc');
	f = await until(frame, (x) => x.includes('/inc') && x.includes('War and Peace'), 'a new filter');
	assert.ok(!f.includes('Emma'));
	await press(KEYS.escape);
	await until(
		frame,
		(x) => x.includes('Emma') && x.includes('Pride') && !x.includes('/inc'),
		'esc clears the filter',
	);
	r.unmount();
});

/** Where `text` starts on a frame line, in terminal columns. */
const columnOf = (line: string, text: string) => textWidth(line.slice(0, line.indexOf(text)));

test('sessions of one book and method are told apart by an id column never cut; the method is never cut, at 80 columns or 250', async () => {
	const title = 'Moby-Dick; or, The Whale — with the Etymology and Extracts';
	const twins = [
		summary('moby-dick-or-the-whale-20260102-030405-a1b2', title, { method: 'inc' }),
		summary('moby-dick-or-the-whale-20260102-030407-9f3c', title, {
			method: 'inc',
			status: 'running',
			progress: { done: 53, total: 56 },
		}),
		summary('moby-dick-or-the-whale-20260101-111111-07e0', title, {
			method: 'hier',
			model: 'claude-sonnet-4-6-20260101',
			booookscore: 81.25,
		}),
	];
	const { r } = await mount(twins);
	const frame = () => unstyled(r.lastFrame() ?? '');
	for (const width of [80, 250, 80]) {
		resize(r, width);
		const f = await until(
			frame,
			(x) =>
				x.includes('method') &&
				x.split('\n').every((l) => textWidth(l) <= width) &&
				(width < 100 || x.includes(title)),
			`the list at ${width} columns`,
		);
		const lines = f.split('\n');
		const header = lines.find((l) => /\bid\b.*\bmethod\b/u.test(l))!;
		assert.ok(header, f);
		// Each id whole, to copy into a command: at 80 columns the book gives way instead.
		const rows = twins.map((s) => lines.find((l) => l.includes(` ${s.id} `))!);
		assert.ok(rows.every(Boolean), `each id shows whole:\n${f}`);
		// Every row has its method whole, where the header says, and the title where "book" is.
		const at = columnOf(header, 'method');
		rows.forEach((row, i) => {
			assert.equal(columnOf(row, twins[i]!.method!), at, `method of row ${i} at ${width} columns:\n${f}`);
			if (width >= 100)
				assert.equal(columnOf(row, 'Moby-Dick'), columnOf(header, 'book'), `title of row ${i}:\n${f}`);
		});
		assert.match(rows[1]!, /stopped 53\/56/u);
		assert.match(rows[2]!, /81\.3/u);
		if (width === 250) {
			for (const s of twins) assert.ok(f.includes(s.id), `the whole id ${s.id} at 250 columns`);
			assert.match(header, /\bupdated\b/u);
		}
	}
	r.unmount();
});

test('a question the screen opens with (a lost-work warning) is read whole at 80 columns, and y or n is the answer', async () => {
	const warning =
		'session "war-2" lost saved work: calls.jsonl holds 3 calls for work missing from session.json and changes.jsonl (was changes.jsonl deleted?); booook resume war-2 reuses the answers in calls.jsonl instead of buying them again, but edits in the lost saves are gone';
	for (const [key, yes] of [
		['n', false],
		['y', true],
	] as const) {
		const choices: HomeChoice[] = [];
		const r = renderScreen(
			<HomeScreen
				sessionsDir="/tmp/sessions"
				load={async () =>
					Object.assign([summary('war-2', 'War and Peace')], { problems: [] }) as SessionListing
				}
				remove={async () => {}}
				check={async () => null}
				defaults={defaults}
				question={{ id: 'war-2', warning }}
				onChoose={(c) => choices.push(c)}
			/>,
		);
		resize(r, 80, 24);
		const frame = () => unstyled(r.lastFrame() ?? '');
		const f = await until(frame, (x) => x.includes('War and Peace') && x.includes('y yes'), 'the question');
		assert.ok(
			f.split('\n').every((l) => textWidth(l) <= 80),
			`no row wider than the terminal:\n${f}`,
		);
		assert.ok(f.split('\n').length <= 24, `the frame fits 24 rows:\n${f}`);
		assert.ok(
			f.replace(/\s+/gu, ' ').includes(`warning: ${warning} Open session war-2 all the same? y yes · n no`),
			f,
		);
		// The list's keys wait for the answer.
		await pressKeys(r, KEYS.enter, 'd', key);
		await until(
			() => String(choices.length),
			(x) => x === '1',
			'the answer',
		);
		assert.deepEqual(choices, [{ kind: 'answer', yes }]);
		r.unmount();
	}
});
