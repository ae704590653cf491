import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Annotation, Judgment, ScoredSummary } from '../../source/domain.ts';
import { firstUnjudged, walkProgress } from '../../source/score/validation.ts';
import { Session } from '../../source/store/session.ts';
import { ValidationWalk } from '../../source/app/validation-walk.ts';
import { sentenceSpans } from '../../source/text/sentences.ts';
import { ValidateScreen } from '../../source/ui/screens/validate/Screen.tsx';
import { KEYS } from '../support/keys.ts';
import { pressKeys, renderScreen, resize, until } from '../support/screen.tsx';
import { waitFor } from '../support/wait.ts';
import { tempDir } from '../support/temp.ts';

const at = '2026-01-01T00:00:00.000Z';
const TEXT =
	'Ann sails to Dover. Then the war ends suddenly. Bob, who is never introduced, sells the boat. Ann returns home.';
const summaries: ScoredSummary[] = [
	{ id: 's0', book: 'voyage.epub', text: TEXT, node: null, version: null, source: 'test' },
];
const spans = sentenceSpans(TEXT);
const ann = (id: number, sentence: number, source: 'model' | 'human', questions: string): Annotation => ({
	id: `a${id}`,
	summary: 's0',
	sentence,
	spans: [spans[sentence]!],
	confusing: true,
	questions,
	types: ['entity omission'],
	source,
	annotator: source === 'model' ? 'openai/gpt-4' : 'pat',
	imported: null,
	raw: null,
	failure: null,
	createdAt: at,
});
const annotations = [
	ann(0, 1, 'model', 'Which war?'),
	ann(1, 2, 'model', 'Who is Bob?'),
	ann(2, 2, 'human', 'Where did Bob come from?'),
];

/** Waits for a write that a key press started (the screen moves on before the file lands). */
const eventually = <T extends object>(what: string, read: () => Promise<T>, ok: (value: T) => boolean) =>
	waitFor(
		what,
		async () => {
			const value = await read();
			return ok(value) && value;
		},
		{ every: 30 },
	);
/** The lines of the frame marked as highlighted (the gutter mark), joined. */
const marked = (frame: string) =>
	frame
		.split('\n')
		.filter((l) => l.includes('▌'))
		.join(' ');

async function setUp(
	t: import('node:test').TestContext,
	mode: 'model' | 'blind',
	opts: {
		annotations?: Annotation[];
		judgments?: Judgment[];
		size?: [number, number];
		evidenceFor?: (unit: { summary: string; sentence: number }) => { text: string; where: string }[];
	} = {},
) {
	const dir = tempDir('validate', t);
	const created = await Session.createCollection(dir, {
		id: 'walk',
		title: 'voyage',
		sources: ['test'],
		summaries,
		annotations: opts.annotations ?? annotations,
		judgments: opts.judgments ?? [],
		runs: [],
	});
	await created.close();
	const session = await Session.open(dir, 'walk');
	t.after(() => session.close());
	const walk = new ValidationWalk(session, 'val', { mode, seed: 5 }, () => new Date(at));
	await walk.begin();
	const app = renderScreen(<ValidateScreen walk={walk} title="voyage" evidenceFor={opts.evidenceFor} />);
	t.after(() => app.unmount());
	if (opts.size) resize(app, ...opts.size);
	const frame = () => app.lastFrame() ?? '';
	/** Waits until the frame shows `pattern` (in its highlighted lines when `where` is 'marked'). */
	const see = (pattern: RegExp, what = String(pattern), where: 'frame' | 'marked' = 'frame') =>
		until(frame, (f) => pattern.test(where === 'marked' ? marked(f) : f), what);
	await see(/voyage/u, 'the first frame');
	const read = async () => (await Session.snapshot(dir, 'walk')).data;
	const onDisk = () =>
		eventually(
			'the verdicts and annotations on disk',
			read,
			(d) => d.judgments.length === walk.judgments.length && d.annotations.length === walk.annotations.length,
		);
	// The walk's state changes as each key is written; the frame follows.
	const press = (...keys: string[]) => pressKeys(app, ...keys);
	/** Types into a text field one key at a time, each after the last one shows (as a person would). */
	const type = async (text: string) => {
		for (let i = 1; i <= text.length; i++) {
			await press(text[i - 1]!);
			await until(frame, (f) => f.includes(text.slice(0, i)), `"${text.slice(0, i)}" typed`);
		}
	};
	return { walk, session, app, press, type, onDisk, see, frame };
}

test('verdicts are saved as they are given, move the walk on, and undo restores the previous state', async (t) => {
	const { walk, press, onDisk, see } = await setUp(t, 'model');
	await see(/Which war\?[^]*model 0\/2|model 0\/2[^]*Which war\?/u, 'the first annotation and the progress');
	await press('a');
	await see(/Who is Bob\?/u, 'agree moves to the next annotation');
	assert.deepEqual(
		(await onDisk()).judgments.map((j: { annotation: string; verdict: string; validator: string }) => [
			j.annotation,
			j.verdict,
			j.validator,
		]),
		[['a0', 'agree', 'val']],
	);
	await press('p');
	await see(/which standards/u, 'the reasons');
	await press('2', '3', KEYS.enter);
	const partial = (await onDisk()).judgments[1]!;
	assert.deepEqual(
		[partial.annotation, partial.verdict, partial.reasons],
		[
			'a1',
			'partial',
			['B. Answered in the summary', 'C. Not addressing issues that matter (refer to standards)'],
		],
	);
	await see(/model 2\/2 · precision 100\.0% · strict 50\.0%/u);
	await press('u');
	assert.deepEqual(
		(await onDisk()).judgments.map((j: { annotation: string }) => j.annotation),
		['a0'],
	);
	await see(/Who is Bob\?[^]*not judged yet/u, 'the undone annotation, unjudged');
	await press('d');
	await see(/precision 50\.0%/u);
	const p = walkProgress(walk.items, walk.judgments, 'val');
	assert.deepEqual([p.model.agree, p.model.partial, p.model.disagree], [1, 0, 1]);
});

test('the current annotation is highlighted in the summary, and a note is kept with the verdict', async (t) => {
	const { press, type, onDisk, see } = await setUp(t, 'model');
	await see(/Then the war ends suddenly\./u, 'the first highlight', 'marked');
	await press(KEYS.right);
	await see(/Bob, who is never introduced/u, 'moving on moves the highlight', 'marked');
	await press('m');
	await see(/give a verdict first/u);
	await press('a');
	await see(/your verdict: agree/u, 'the verdict');
	await press('m');
	await see(/note: /u, 'the note field');
	await type('odd');
	await press(KEYS.enter);
	const saved = (await onDisk()).judgments;
	assert.equal(saved.at(-1)!.note, 'odd');
	assert.equal(saved.at(-1)!.annotation, 'a1');
});

test('a blind walk hides who wrote each annotation until every one is judged', async (t) => {
	const { press, see } = await setUp(t, 'blind');
	assert.doesNotMatch(await see(/judged 0\/3/u), /openai\/gpt-4|pat\)|· model|· human/);
	await press('a');
	await see(/judged 1\/3/u);
	await press('a');
	assert.doesNotMatch(await see(/judged 2\/3/u), /openai\/gpt-4|pat\)/);
	await press('d');
	await see(/model \d\/2[^]*human \d\/1|human \d\/1[^]*model \d\/2/u, 'sources appear once all are judged');
});

test('h adds a human annotation over chosen sentences; hostile text never reaches the frame', async (t) => {
	const { press, type, onDisk, app, see } = await setUp(t, 'model');
	// Sentences 2-3, less the first word: a span may be part of a sentence.
	await press('h');
	await see(/your annotation: sentence/u, 'the span picker');
	await press(']', '>', KEYS.enter);
	await see(/questions: /u, 'the questions field');
	await type('Why?');
	await press(KEYS.enter);
	await see(/error types:/u, 'the types');
	await press('3', KEYS.enter);
	const added = (await onDisk()).annotations.at(-1)!;
	assert.equal(added.source, 'human');
	assert.equal(added.annotator, 'val');
	assert.deepEqual(added.types, ['causal omission']);
	assert.equal(added.questions, 'Why?');
	assert.deepEqual(added.spans, [{ start: TEXT.indexOf('the war'), end: spans[2]!.end }]);
	assert.equal(
		TEXT.slice(added.spans[0]!.start, added.spans[0]!.end),
		'the war ends suddenly. Bob, who is never introduced, sells the boat.',
	);
	await press(KEYS.escape);
	// eslint-disable-next-line no-control-regex -- an escape sequence is what the test looks for
	assert.ok(!/\u001B\]/.test(app.lastFrame()!));
});

test('highlighting marks exactly the span, keeps words whole across lines, and cleans hostile text', async () => {
	const { highlightLines } = await import('../../source/ui/styled-lines.ts');
	const text =
		'Mr. Smith went home. He was \u001B]52;c;aGk=\u0007tired\u001B[2J. The end came quickly for everyone.';
	const start = text.indexOf('He was');
	const end = text.indexOf('. The end') + 1;
	const { lines, firstMarked } = highlightLines(text, [{ start, end }], 16);
	const flat = lines.map((l) => l.map((p) => p.text).join(''));
	assert.ok(
		flat.every((l) => l.length <= 16),
		flat.join('|'),
	);
	assert.equal(
		flat.join(' ').replace(/\s+/g, ' '),
		'Mr. Smith went home. He was tired. The end came quickly for everyone.',
	);
	const markedText = lines
		.flatMap((l) => l.filter((p) => p.style !== null).map((p) => p.text))
		.join(' ')
		.replace(/\s+/g, ' ')
		.trim();
	assert.equal(markedText, 'He was tired.');
	assert.equal(
		firstMarked,
		flat.findIndex((l) => l.includes('He was')),
	);
	assert.ok(!flat.join('').includes('\u001B') && !flat.join('').includes('\u0007'));
});

test('tab shows the results; a blind walk holds them back until every item is judged', async (t) => {
	const { press, see } = await setUp(t, 'blind');
	await press(KEYS.tab);
	await see(/Results by source are shown when every item of the blind walk is judged/u);
	await press('x');
	await see(/judged 0\/3/u, 'the walk again');
	for (const [key, n] of [
		['a', 1],
		['a', 2],
		['d', 3],
	] as const) {
		await press(key);
		await see(new RegExp(`judged ${n}/3|model \\d/2`, 'u'), `${n} judged`);
	}
	await press(KEYS.tab);
	const frame = await see(/precision, judged by val/u);
	assert.match(frame, /model +\d+\.\d% \[/);
	assert.match(frame, /human +\d+\.\d% \[/);
});

test('keys that arrive together ("ad" in one read) are each a verdict', async (t) => {
	const { walk, press, onDisk } = await setUp(t, 'model');
	await press('ad');
	assert.deepEqual(
		(await onDisk()).judgments.map((j: { verdict: string }) => j.verdict),
		['agree', 'disagree'],
	);
	assert.equal(walk.judgments.length, 2);
});

test('a note typed as one burst ("modd" in one read) opens the field and is saved whole', async (t) => {
	const { press, onDisk, see, app } = await setUp(t, 'model');
	await press('a');
	await see(/Who is Bob\?/u, 'the next annotation');
	await press(KEYS.left);
	await see(/your verdict: agree/u, 'back on the judged one');
	app.stdin.write('modd');
	app.stdin.write(KEYS.enter);
	const saved = await eventually(
		'the note on disk',
		async (): Promise<Judgment[]> => (await onDisk()).judgments,
		(js) => js.length === 2,
	);
	assert.equal(saved.at(-1)!.note, 'odd');
	assert.equal(saved.at(-1)!.annotation, 'a0');
	await see(/note: odd/u, 'the note under the verdict');
});

// As in the released study: the people's single spans have no error types, the model's have some.
const mixed = [
	ann(0, 1, 'model', 'Which war?'),
	{ ...ann(1, 2, 'human', 'Who is Bob?'), types: [] },
	ann(2, 3, 'model', 'Home where?'),
];

test('a blind walk shows nothing that tells the sources apart until the walk is done, then shows them', async (t) => {
	const { press, see, frame } = await setUp(t, 'blind', { annotations: mixed });
	// Every item as first shown, less what is its own (its questions, its place in the text and the
	// walk) and what the last key left (the progress, the message, and the pane's blank lines, which
	// the message's line takes its room from).
	const seen: string[] = [];
	const own = /Which war\?|Who is Bob\?|Home where\?|annotation \d\/3/gu;
	const neutral = (f: string) =>
		f
			.split('\n')
			.filter((l) => !/^judged \d\/3|^saved: agree|^│\s*│$/u.test(l))
			.map((l) => l.replace(own, '').replace(/▌/gu, ' '))
			.join('\n');
	for (let n = 0; n < 3; n++) {
		const f = await see(new RegExp(`annotation ${n + 1}/3`, 'u'), `item ${n + 1}`);
		assert.doesNotMatch(f, /Types:|entity omission|openai\/gpt-4|\bpat\b|· model|· human/u);
		seen.push(neutral(f));
		if (n < 2) await press('a');
	}
	assert.equal(new Set(seen).size, 1, `the items differ beyond their own text:\n${seen.join('\n----\n')}`);
	await press('d');
	const done = await see(
		/model \d\/2[^]*human \d\/1|human \d\/1[^]*model \d\/2/u,
		'the sources once all are judged',
	);
	assert.match(done, /Types: /u);
	assert.ok(frame().includes('(pat)') || frame().includes('(openai/gpt-4)'));
});

test("a blind walk's progress line is judged/total only; tab shows the precision so far, both sources pooled", async (t) => {
	const { press, see } = await setUp(t, 'blind');
	const progress = (f: string) => f.split('\n')[1];
	assert.equal(progress(await see(/judged 0\/3/u)), 'judged 0/3');
	await press('a');
	assert.equal(progress(await see(/judged 1\/3/u)), 'judged 1/3');
	await press('d');
	assert.equal(progress(await see(/judged 2\/3/u)), 'judged 2/3');
	await press(KEYS.tab);
	const results = await see(/so far, both sources pooled: 50\.0%/u, 'the pooled results');
	assert.doesNotMatch(results, /model|human/u);
});

test('reopening a walk starts at its first unjudged item', async (t) => {
	const judged = (a: Annotation): Judgment => ({
		annotation: a.id,
		validator: 'val',
		verdict: 'agree',
		reasons: [],
		note: null,
		at,
	});
	const { see } = await setUp(t, 'model', { judgments: [judged(annotations[0]!)] });
	await see(/annotation 2\/2[^]*Who is Bob\?/u, 'the second (first unjudged) annotation');
});

for (const [columns, rows] of [
	[120, 40],
	[80, 24],
] as const) {
	test(`the partial-agree dialog keeps the header on screen at ${columns}×${rows}`, async (t) => {
		// Long questions and a long summary: the dialog must take its room from the summary pane.
		const long = [
			ann(
				0,
				1,
				'model',
				'Which war is meant here, and who fought it, and why does it end so suddenly? '.repeat(6),
			),
			ann(1, 2, 'model', 'Who is Bob?'),
		];
		const { press, see } = await setUp(t, 'model', { annotations: long, size: [columns, rows] });
		await see(new RegExp(`^.{${columns - 2},${columns}}$`, 'mu'), `a frame ${columns} wide`);
		await press('p');
		const f = await see(/Partially agree[^]*4\. D\. Other/u, 'the dialog');
		const lines = f.split('\n');
		// A frame as tall as the terminal scrolls its first line away.
		assert.ok(lines.length < rows, `${lines.length} lines in a ${rows}-row terminal:\n${f}`);
		assert.match(lines[0]!, /^Validate · voyage/u);
		assert.ok(
			lines.every((l) => l.length <= columns),
			'no line wider than the terminal',
		);
		assert.match(lines.at(-1)!, /^1-4 tick · enter save · esc cancel/u, "the footer shows the dialog's keys");
	});
}

test("the footer shows the walk's main keys first, and ? lists the walk's keys, not the run screen's", async (t) => {
	const { press, see } = await setUp(t, 'model');
	const f = await see(/a agree/u, 'the footer');
	assert.match(
		f.split('\n').at(-1)!,
		/^a agree {2}p partial {2}d disagree {2}u undo {2}m note {2}n unjudged/u,
	);
	await press('?');
	const help = await see(/esc or \? closes/u, 'the help');
	assert.match(help, /Validation\n/u);
	assert.match(help, /a +agree[^]*p +partially agree[^]*tab +results so far/u);
	assert.doesNotMatch(help, /pane|Run screen/u);
	await press('?');
	await see(/a agree {2}p partial/u, 'the walk again');
});

test('the passages of the book for the sentence being judged sit below it, and give way to a dialog', async (t) => {
	const asked: string[] = [];
	const evidenceFor = (unit: { summary: string; sentence: number }) => {
		asked.push(`${unit.summary}:${unit.sentence}`);
		return [
			{
				text: `The book's passage for sentence ${unit.sentence + 1}.`,
				where: `chunk ${unit.sentence}, 10% into the book`,
			},
		];
	};
	const { see, press, frame } = await setUp(t, 'model', { size: [100, 30], evidenceFor });
	const first = await see(/evidence from the book:/u, 'the evidence');
	assert.match(first, /chunk \d+, 10% into the book/u);
	const which = /passage for sentence (\d+)/u.exec(first)![1];
	assert.ok(asked.includes(`s0:${Number(which) - 1}`), 'asked for the sentence the annotation is about');
	await press('p');
	await until(frame, (f) => !f.includes('evidence from the book:'), 'the dialog takes the room');
	assert.ok(frame().split('\n').length < 30, 'the frame stays below the terminal height');
});

test('a then m notes the item just judged; one u takes back the verdict with its note, and says so', async (t) => {
	const { press, type, onDisk, see } = await setUp(t, 'model');
	await press('a');
	await see(/saved: agree · m: a note on it/u, 'the verdict saved, and the hint');
	await press('m');
	await see(/annotation 1\/2[^]*note: /u, 'the note field, on the item just judged');
	await type('odd');
	await press(KEYS.enter);
	await see(/annotation 2\/2[^]*note saved/u, 'the walk back where it had moved on');
	assert.deepEqual(
		(await onDisk()).judgments.map((j: Judgment) => [j.annotation, j.verdict, j.note]),
		[
			['a0', 'agree', null],
			['a0', 'agree', 'odd'],
		],
	);
	await press('u');
	await see(/undone: agree and its note on annotation 1; not judged now/u, 'what was undone');
	assert.deepEqual((await onDisk()).judgments, []);
	await see(/annotation 1\/2[^]*not judged yet/u, 'the undone item, unjudged');
});

test('adding your own annotation keeps you on your item, and the walk keeps its numbers when it is opened again', async (t) => {
	const many = [...annotations, ann(3, 0, 'model', 'Where is Dover?'), ann(4, 3, 'human', 'Home where?')];
	const { walk, session, press, type, see, onDisk, app } = await setUp(t, 'blind', { annotations: many });
	for (let n = 1; n <= 3; n++) {
		await see(new RegExp(`annotation ${n}/5`, 'u'), `item ${n}`);
		await press('a');
	}
	const before = await see(/annotation 4\/5/u, 'item 4');
	const questions = /Questions: (.*)/u.exec(before)![1]!;
	await press('h', KEYS.enter);
	await see(/questions: /u, 'the questions field');
	await type('Why?');
	await press(KEYS.enter, '1', KEYS.enter);
	await see(/added your annotation/u);
	assert.equal((await onDisk()).annotations.length, 6);
	assert.match(
		app.lastFrame()!,
		new RegExp(`annotation 4/5[^]*Questions: ${questions.replace(/[?.]/gu, '\\$&')}`, 'u'),
	);
	// Opened again (the same validator, mode and seed): the same items in the same order.
	const again = new ValidationWalk(
		session,
		'val',
		{ mode: 'blind', seed: 5 },
		() => new Date('2026-06-01T00:00:00.000Z'),
	);
	assert.deepEqual(
		again.items.map((a) => a.id),
		walk.items.map((a) => a.id),
	);
	assert.equal(firstUnjudged(again.items, again.judgments, 'val'), 3, 'it reopens on item 4');
});

test('at 80×24 a long message wraps whole, the header keeps the validator, and the footer has whole keys', async (t) => {
	const { walk, press, see } = await setUp(t, 'blind', { size: [80, 24] });
	const failure =
		'could not save session.json: no space left on device (ENOSPC) in /home/someone/sessions/walk; free some space, then give the verdict again';
	walk.judge = async () => {
		throw new Error(failure);
	};
	await press('a');
	const f = await see(/ENOSPC/u, 'the failure');
	const lines = f.split('\n');
	assert.ok(lines.length < 24 && lines.every((l) => l.length <= 80), f);
	assert.ok(lines.join(' ').replace(/\s+/gu, ' ').includes(failure), `the whole message:\n${f}`);
	assert.match(lines[0]!, /^Validate · voyage · blind \(sources hidden\) · validator val$/u);
	assert.doesNotMatch(lines.at(-1)!, /…/u);
	assert.match(lines.at(-1)!, /q quit {2}\? help/u);
});
