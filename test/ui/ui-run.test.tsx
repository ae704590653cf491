import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeRef, Run, RunStatus } from '../../source/domain.ts';
import type { EngineEvent } from '../../source/engine/events.ts';
import { activeVersion, findNode } from '../../source/summarize/graph.ts';
import { WEAK_SUPPORT } from '../../source/evidence/support.ts';
import { splitSentences } from '../../source/text/sentences.ts';
import type { RunControls, RunInfo } from '../../source/ui/controls.ts';
import { externalEditorFrom } from '../../source/app/external-editor.ts';
import { BINDINGS } from '../../source/ui/keymap.ts';
import { RunScreen, type ExternalEditor } from '../../source/ui/screens/run/Screen.tsx';
import { ViewFeed } from '../../source/ui/state/view-feed.ts';
import { initialView } from '../../source/ui/state/view.ts';
import { FakeModel } from '../support/fake-model.ts';
import { randomBook, setUp } from '../support/run-harness.ts';
import { KEYS } from '../support/keys.ts';
import { renderScreen, resize, until } from '../support/screen.tsx';
import { ESC } from '../support/ansi.ts';
import { waitFor } from '../support/wait.ts';

/** Controls that record what the screen asked for and report events as the test tells them. */
class FakeControls implements RunControls {
	readonly asked: string[] = [];
	readonly #listeners = new Set<(e: EngineEvent) => void>();
	constructor(readonly run: Run) {}
	emit(event: EngineEvent) {
		for (const l of this.#listeners) l(event);
	}
	pause() {
		this.asked.push('pause');
		this.emit({ type: 'run-paused' });
	}
	resume() {
		this.asked.push('resume');
		this.emit({ type: 'run-resumed', stepping: false });
	}
	step() {
		this.asked.push('step');
		this.emit({ type: 'run-resumed', stepping: true });
	}
	cancel() {
		this.asked.push('cancel');
	}
	start(): Promise<RunStatus> {
		this.asked.push('start');
		return new Promise(() => {});
	}
	async edit(id: NodeRef, text: string) {
		this.asked.push(`edit ${id} ${text}`);
		return [];
	}
	async rerun(id: NodeRef) {
		this.asked.push(`rerun ${id}`);
		return [];
	}
	async setActive(id: NodeRef, version: number) {
		this.asked.push(`setActive ${id} ${version}`);
		return [];
	}
	on(listener: (e: EngineEvent) => void) {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}
}

async function mount(
	controls: RunControls,
	opts: { info?: Partial<RunInfo>; book?: string; externalEditor?: ExternalEditor; stepping?: boolean } = {},
) {
	const store = new ViewFeed(initialView(controls.run, { stepping: opts.stepping }), {
		fps: 1000,
		run: () => controls.run,
	});
	controls.on(store.dispatch);
	const info: RunInfo = {
		session: 'sess',
		title: 'A Test Book',
		book: opts.book ?? '',
		provider: 'openai',
		model: 'fake',
		isLLM: true,
		priced: true,
		...opts.info,
	};
	const quit: string[] = [];
	const r = renderScreen(
		<RunScreen
			controls={controls}
			feed={store}
			info={info}
			start={() => void controls.start()}
			quit={() => quit.push('quit')}
			externalEditor={opts.externalEditor ?? null}
		/>,
	);
	// A key is handled as it is written (the screen's state changes at once; the frame follows).
	const press = async (key: string) => {
		r.stdin.write(key);
	};
	const frame = () => r.lastFrame() ?? '';
	// Ink listens for keys from an effect after the first frame: `until` waits for it.
	await until(frame, (f) => f.includes('booook'), 'the first frame');
	return { r, store, press, quit, frame };
}

async function finished(method: 'hier' | 'inc', seed = 5) {
	const book = randomBook(seed, 50);
	const h = await setUp(
		book,
		{ method, chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		new FakeModel({ seed }),
	);
	assert.equal(await h.engine.start(), 'done');
	return { ...h, book };
}

const textOf = (run: Run, id: NodeRef) => activeVersion(findNode(run, id)!)!.text;

/** A finished hierarchical run on the run screen, with a node below the root selected. */
async function belowRoot() {
	const { run, engine } = await finished('hier');
	const mounted = await mount(engine);
	await mounted.press(KEYS.up);
	const shown = await until(
		mounted.frame,
		(f) => /^node n\d+ · (summary|merge) /mu.test(f) && !f.includes(`node ${run.root} · merge`),
		'a node below the root selected',
	);
	return {
		...mounted,
		run,
		target: findNode(run, /^node (n\d+) · (?:summary|merge) /mu.exec(shown)![1] as NodeRef)!,
	};
}
const head = (text: string) => text.slice(0, 30);

test('space pauses and resumes: the header shows the state the run is in', async () => {
	const { run } = await finished('hier');
	const controls = new FakeControls(run);
	const { press, frame, r } = await mount(controls);
	controls.emit({
		type: 'run-started',
		session: 's',
		method: 'hier',
		provider: 'openai',
		model: 'fake',
		isLLM: true,
		planned: 30,
		levels: [],
		done: 0,
	});
	await until(frame, (f) => f.includes('running'), 'running');
	await press(' ');
	assert.deepEqual(controls.asked, ['pause']);
	await until(frame, (f) => f.includes('paused') && !f.includes('running'), 'paused');
	await press(' ');
	assert.deepEqual(controls.asked, ['pause', 'resume']);
	await until(frame, (f) => f.includes('running'), 'running again');
	await press('s');
	await until(frame, (f) => f.includes('stepping'), 'stepping');
	// The step's call runs, then ends: the header stops saying a step is under way.
	const node = run.nodes[0]!;
	controls.emit({
		type: 'node-started',
		node: node.id,
		kind: node.kind,
		level: node.level,
		index: node.index,
		attempt: 0,
	});
	await until(frame, (f) => f.includes('⏵ stepping'), 'a step under way');
	controls.emit({ type: 'node-failed', node: node.id, error: 'the fake ends it' } as EngineEvent);
	await until(
		frame,
		(f) => f.includes('stepping: s next') && !f.includes('⏵'),
		'the step over, the next waiting',
	);
	r.unmount();
});

test("while the rate limit holds calls back, the header says so in the title's place, and the ETA counts the limit", async () => {
	const { run } = await finished('hier');
	const controls = new FakeControls(run);
	const { frame, r } = await mount(controls);
	controls.emit({
		type: 'run-started',
		session: 's',
		method: 'hier',
		provider: 'openai',
		model: 'fake',
		isLLM: true,
		planned: 30,
		levels: [],
		done: 0,
	});
	// 25 calls left of about 6,000 tokens each, under 150,000 a minute: a minute at least.
	const limits = { refusals: 0, answered: 5, asked: 30_000, used: 20_000, limits: { tokens: 150_000 } };
	controls.emit({
		type: 'rate-limit',
		...limits,
		wait: { resumesAt: Date.now() + 12_400, why: 'tokens', used: 148_200, limit: 150_000 },
	});
	const waiting = await until(frame, (f) => f.includes('waiting for the rate limit'), 'the wait shown');
	assert.match(
		waiting,
		/waiting for the rate limit: resumes in 1[12]s \(148,200 of 150,000 tokens a minute used\)/u,
	);
	assert.ok(!waiting.includes('A Test Book'), "the wait takes the title's place");
	controls.emit({
		type: 'usage',
		node: 'n0' as NodeRef,
		usage: { input: 1, output: 1, cached: 0 },
		cost: 0,
		saved: 0,
		totals: { calls: 5, input: 25_000, output: 5000, cached: 0, cost: 0, saved: 0 },
	});
	controls.emit({ type: 'rate-limit', ...limits, wait: null });
	const after = await until(frame, (f) => f.includes('A Test Book'), 'the title back once nothing waits');
	assert.match(after, /ETA (1m|[2-9]m)/u);
	r.unmount();
});

test('a model without a known price shows "cost unknown" in the header, not $0.0000', async () => {
	const { run } = await finished('hier');
	const controls = new FakeControls(run);
	const { frame, r } = await mount(controls, { info: { priced: false } });
	await until(frame, (f) => f.includes('cost unknown'), 'cost unknown');
	assert.ok(!frame().includes('$0.0000'));
	r.unmount();
});

test('selecting nodes in the tree changes the detail pane; tab shows inputs and attempts', async () => {
	const { run, book } = await finished('hier');
	const { press, frame, r } = await mount(new FakeControls(run), { book });
	const root = run.root!;
	await until(
		frame,
		(f) => f.includes(`node ${root} · merge`) && f.includes(head(textOf(run, root))),
		'the final summary selected',
	);
	await press(KEYS.up); // down the tree to the first node the root reads
	const child = findNode(run, root)!.inputs[0]!;
	let f = await until(
		frame,
		(x) => x.includes(`node ${child} · merge`) || x.includes(`node ${child} · summary`),
		`${child} selected`,
	);
	assert.ok(f.includes(head(textOf(run, child))), 'its text is shown');
	await press(KEYS.right);
	const row = run.nodes
		.filter((n) => n.level === findNode(run, child)!.level)
		.sort((a, b) => a.index - b.index);
	const next = row[row.findIndex((n) => n.id === child) + 1]!;
	f = await until(frame, (x) => x.includes(`node ${next.id} `), `${next.id} selected`);
	assert.ok(f.includes(head(textOf(run, next.id))));
	await press(KEYS.tab);
	const input = next.inputs[0]!;
	// A chunk is named by its number counted from 1, never by its id beside it; a node by its id.
	const heading = input.startsWith('c')
		? `── chunk ${Number(input.slice(1)) + 1} of ${run.chunks.length} (`
		: `── node ${input}:`;
	f = await until(frame, (x) => x.includes(heading), 'the inputs pane');
	assert.ok(!f.includes(`(${input},`), 'no chunk id beside its number');
	await press(KEYS.tab);
	await until(frame, (x) => x.includes('calls of the active version'), 'the attempts pane');
	r.unmount();
});

test('? shows every key of the keymap, and closes again', async () => {
	const { run } = await finished('hier');
	const { press, frame, r } = await mount(new FakeControls(run));
	await press('?');
	let seen = await until(frame, (f) => f.includes('Run screen'), 'the help');
	const runBindings = BINDINGS.filter((b) => b.on.includes('run'));
	const missing = () => runBindings.filter((b) => !seen.includes(b.description.slice(0, 40)));
	// The list is longer than 24 rows: page through it, collecting what is shown (a key the help
	// leaves out makes this wait for a page that never comes, and the test fails).
	while (missing().length > 0) {
		const before = frame();
		await press(KEYS.pageDown);
		seen += await until(
			frame,
			(f) => f !== before,
			`the next page of help (missing: ${missing()
				.map((b) => b.description)
				.join('; ')})`,
			5_000,
		);
	}
	await press('?');
	await until(frame, (f) => !f.includes('Run screen') && f.includes('text'), 'the run screen again');
	r.unmount();
});

test('the in-app editor saves a new version; the versions browser switches the active one back', async () => {
	const { run, press, frame, r, target } = await belowRoot();
	const before = textOf(run, target.id);
	await press('e');
	await until(frame, (f) => f.includes(`Editing ${target.id}`), 'the editor');
	await press(' Added by a person.');
	await press(KEYS.ctrlS);
	await until(frame, (f) => f.includes('Saved as a new version'), 'saved');
	assert.equal(target.versions.length, 2);
	assert.equal(target.versions[1]!.origin, 'edit');
	assert.equal(target.versions[1]!.text, `${before} Added by a person.`);
	await until(frame, (f) => f.includes('version 2 of 2 (edited)'), 'the edited version shown');
	await press('v');
	await until(
		frame,
		(f) => f.includes(`Versions of node ${target.id} (2)`) && f.includes('edited by hand'),
		'the versions browser',
	);
	await press(KEYS.up);
	await press(KEYS.enter);
	await until(frame, (f) => f.includes('Version 1 of') && f.includes('version 1 of 2'), 'version 1 active');
	assert.equal(target.active, 0);
	r.unmount();
});

test('keys typed with the e that opens the editor land in it; saving an unchanged text says so and saves nothing', async () => {
	const { run, press, frame, r, target } = await belowRoot();
	const before = textOf(run, target.id);
	// One burst: the editor opens on "e" and the rest is typed into it, none of it read as run keys.
	await press('e typed fast');
	await press(KEYS.ctrlS);
	await until(frame, (f) => f.includes('Saved as a new version'), 'saved');
	assert.equal(activeVersion(target)!.text, `${before} typed fast`);
	assert.ok(!frame().includes('paused'), 'the space typed into the editor did not pause the run');
	await press('e');
	await until(frame, (f) => f.includes(`Editing ${target.id}`), 'the editor again');
	await press(KEYS.ctrlS);
	await until(frame, (f) => f.includes('No change: nothing saved.'), 'no change');
	assert.equal(target.versions.length, 2);
	r.unmount();
});

test('$EDITOR edits go through the external editor and are saved as an edit', async () => {
	const { run } = await finished('hier');
	const controls = new FakeControls(run);
	const seen: string[] = [];
	const { press, frame, r } = await mount(controls, {
		externalEditor: (text) => {
			seen.push(text);
			return `${text} (revised)`;
		},
	});
	await press('e');
	await until(frame, (f) => f.includes('Saved as a new version'), 'saved');
	assert.deepEqual(seen, [textOf(run, run.root!)]);
	assert.deepEqual(controls.asked, [`edit ${run.root} ${textOf(run, run.root!)} (revised)`]);
	r.unmount();
});

test('externalEditorFrom runs $EDITOR on a temporary file and reads it back', () => {
	assert.equal(externalEditorFrom({}), null);
	const editor = externalEditorFrom({ ...process.env, EDITOR: "sed -i 's/cat/dog/'" })!;
	assert.equal(editor('a cat sat'), 'a dog sat');
	assert.equal(editor('no change here'), null);
});

test('the incremental timeline moves back through the steps, showing each summary as it was', async () => {
	const { run, book } = await finished('inc');
	const { press, frame, r } = await mount(new FakeControls(run), { book });
	const steps = run.nodes;
	const last = steps.at(-1)!;
	await until(frame, (f) => f.includes(`node ${last.id} · update`), 'the newest step');
	await press(KEYS.left);
	const previous = steps.at(-2)!;
	let f = await until(frame, (x) => x.includes(`node ${previous.id} `), 'the step before');
	assert.ok(
		f.includes(head(textOf(run, previous.id))) ||
			f.includes(head(textOf(run, previous.id)).split(' ').slice(0, 3).join(' ')),
		'its text is shown',
	);
	assert.match(f, /\+\d+ −\d+ sentences/u, 'sentences added and dropped are counted');
	await press('c');
	f = await until(frame, (x) => x.includes('chunk text'), 'the chunk pane');
	const chunk = run.chunks[Number(previous.inputs[0]!.slice(1))]!;
	assert.ok(f.includes(book.slice(chunk.start, chunk.start + 20)), 'the chunk read at that step');
	r.unmount();
});

test('hostile text from a book or a model never reaches the frame', async () => {
	const { run, book } = await finished('hier');
	const controls = new FakeControls(run);
	const hostile = [
		`${ESC}]52;c;ZXZpbA==\x07`,
		`${ESC}]0;pwned${ESC}\\`,
		`${ESC}[2J${ESC}[H`,
		`${ESC}[10A`,
		'\rover',
		'\u202Egnp.exe',
		'\x9b31m',
		'\x07',
	];
	const root = findNode(run, run.root!)!;
	root.versions[root.active!]!.text = `Summary ${hostile.join(' and ')} ends.`;
	const { frame, r, press } = await mount(controls, {
		book,
		info: { title: `Evil ${hostile[1]}Title`, model: `m${hostile[0]}` },
	});
	const leaf = run.nodes[0]!;
	controls.emit({
		type: 'run-started',
		session: 's',
		method: 'hier',
		provider: 'openai',
		model: 'fake',
		isLLM: true,
		planned: 30,
		levels: [],
		done: 0,
	});
	controls.emit({ type: 'node-started', node: leaf.id, kind: 'summarize', level: 0, index: 0, attempt: 0 });
	leaf.status = 'running';
	for (const piece of hostile)
		controls.emit({ type: 'delta', node: leaf.id, attempt: 0, text: `stream ${piece} text ` });
	await until(frame, (f) => f.includes('stream'), 'the streaming text');
	const frames = [frame()];
	controls.emit({
		type: 'run-finished',
		status: 'done',
		root: root.id,
		error: null,
		totals: { input: 0, output: 0, cached: 0, cost: 0, calls: 1, saved: 0 },
	});
	frames.push(await until(frame, (f) => f.includes('Final summary'), 'the final summary'));
	await press(KEYS.tab);
	frames.push(frame());
	for (const f of frames) {
		assert.ok(
			// eslint-disable-next-line no-control-regex -- control characters are what the test looks for
			!/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/u.test(f.replace(/\n/gu, '')),
			`no control character in:\n${JSON.stringify(f)}`,
		);
		assert.ok(!f.includes('pwned') || !f.includes(`${ESC}]`), 'no OSC');
	}
	r.unmount();
});

test('the real engine pauses from the keyboard: calls in flight finish, no new one starts', async () => {
	const book = randomBook(9, 60);
	const model = new FakeModel({ seed: 9, latencyMs: 15 });
	const { engine } = await setUp(
		book,
		{ method: 'inc', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		model,
	);
	const { press, frame, r } = await mount(engine);
	const done = engine.start();
	await until(frame, (f) => f.includes('running') && /\b[1-9]\d*\/\d+ calls/u.test(f), 'some calls made');
	await press(' ');
	await until(frame, (f) => f.includes('paused'), 'paused');
	// The calls in flight finish; the next node then waits at the gate without calling the model
	// (let through, it would call at once, as the run does between calls).
	await until(
		() =>
			`${model.requests.length === engine.totals.calls} ${engine.run.nodes.some((n) => n.status === 'running')}`,
		(x) => x === 'true true',
		'the calls in flight to finish and the next node to wait',
	);
	assert.equal(engine.run.status, 'running');
	assert.ok(
		model.requests.length < engine.run.chunks.length,
		'work is left (an incremental run calls once per chunk at least): the run is held, not done',
	);
	await press(' ');
	assert.equal(await done, 'done');
	await until(frame, (f) => f.includes('done') && f.includes('Final summary'), 'done');
	r.unmount();
});

test('the evidence pane shows a sentence of the selected node and the passages of the book it can come from; [ and ] choose the sentence', async () => {
	const { run, book } = await finished('hier');
	const { press, frame, r } = await mount(new FakeControls(run), { book });
	await until(frame, (f) => f.includes('Final summary') || f.includes('done'), 'the finished run');
	// The first chunk's summary: its sentences can only come from that chunk.
	await press(KEYS.up); // the row above: level 1, the first node the top merge reads
	const level0 = run.nodes.find((n) => n.level === 0 && n.index === 0)!;
	await until(
		frame,
		(f) => f.includes(`node ${level0.id} · summary · level 1 #1 · chunk 1 of `),
		'a chunk summary selected: positions count from 1',
	);
	await press('\t\t\t');
	await until(
		frame,
		(x) => /sentence 1 of \d+ \(\[ and \] choose\) · from chunk 1\b/u.test(x),
		'the evidence pane: a chunk summary comes from its chunk',
	);
	// The fake model shares one content word with the book ("walked"): a sentence with it has passages.
	const sentences = splitSentences(textOf(run, level0.id));
	const k = sentences.findIndex((s) => /\bwalked\b/iu.test(s));
	assert.ok(k >= 0);
	await press(']'.repeat(k));
	const f = await until(
		frame,
		(x) => x.includes(`sentence ${k + 1} of ${sentences.length}`),
		'the sentence with a shared word',
	);
	assert.match(f, /chunk 1 of \d+ · \d+% into the book/u, 'a passage of its chunk, with where it is');
	const passage = f.split('\n').findIndex((l) => /chunk 1 of \d+ · \d+% into the book/u.test(l));
	assert.match(f.split('\n')[passage + 1]!, /walked/iu, 'the passage shares the word');
	// How well its passages hold it: a number in [0, 1], flagged when weak.
	const support = /support (\d\.\d\d)( · weakly supported)?/u.exec(f);
	assert.ok(support, 'the support line');
	assert.equal(support[2] !== undefined, Number(support[1]) < WEAK_SUPPORT);
	await press('[');
	await until(frame, (x) => x.includes(`sentence ${Math.max(1, k)} of`), 'back one sentence');
	r.unmount();
});

test('a finished run opened on the run screen does not claim its final summary is printed above; one that finishes here does', async () => {
	const { run, engine } = await finished('hier');
	const opened = await mount(engine);
	const f = await until(opened.frame, (x) => x.includes('The run is done'), 'the done line');
	assert.doesNotMatch(f, /printed above/u, 'nothing was printed above a session opened finished');
	assert.match(f, new RegExp(`final summary is the text of node ${run.root}`, 'u'));
	opened.r.unmount();

	const fresh = await setUp(
		randomBook(6, 50),
		{ method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		new FakeModel({ seed: 6 }),
	);
	const live = await mount(fresh.engine);
	await live.press(' ');
	const g = await until(live.frame, (x) => x.includes('The run is done'), 'the run finishing on the screen');
	assert.match(g, /printed above/u);
	live.r.unmount();
});

test('at 80×24 a long error wraps onto more rows, whole, within the screen; the footer keeps whole keys', async () => {
	const { run, book } = await finished('hier');
	const controls = new FakeControls(run);
	const { r, frame } = await mount(controls, { book });
	resize(r, 80, 24);
	const error =
		"the server answered 400: this model's maximum context length is 8192 tokens, but the messages came to 9310 tokens; lower --chunk-size or --max-summary, or pick a model with a longer context";
	controls.emit({
		type: 'run-finished',
		status: 'failed',
		root: run.root,
		error,
		totals: { input: 0, output: 0, cached: 0, cost: 0, calls: 1, saved: 0 },
	});
	const f = await until(
		frame,
		(x) => x.includes('run failed') && x.split('\n').every((l) => l.length <= 80),
		'the error at 80 columns',
	);
	const lines = f.split('\n');
	assert.ok(lines.length < 24, `${lines.length} lines:\n${f}`);
	assert.ok(lines.join(' ').replace(/\s+/gu, ' ').includes(`run failed: ${error}`), `the whole error:\n${f}`);
	const footer = lines.at(-1)!;
	assert.doesNotMatch(footer, /…/u, 'no key cut in the middle');
	assert.match(footer, /^space pause {2}s step {2}e edit .* q quit {2}\? help$/u);
	r.unmount();
});

test('after an edit, s makes one call of the stale work and holds, and space runs the rest', async () => {
	const book = randomBook(5, 50);
	const model = new FakeModel({ seed: 5 });
	const { run, engine } = await setUp(
		book,
		{ method: 'inc', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		model,
	);
	assert.equal(await engine.start(), 'done');
	const { press, frame, r } = await mount(engine);
	// The third step from the end: the two after it go stale.
	const edited = run.nodes.at(-3)!;
	await engine.edit(edited.id, `${textOf(run, edited.id)} Edited.`);
	await until(frame, (f) => f.includes('○ idle'), 'idle with stale steps');
	const before = model.requests.length;
	await press('s');
	await until(frame, (f) => f.includes('stepping'), 'stepping');
	// One call; the next stale step then waits at the gate without calling the model.
	await until(
		() => `${model.requests.length} ${engine.run.nodes.some((n) => n.status === 'running')}`,
		(x) => x === `${before + 1} true`,
		'one call, then the next step held',
	);
	assert.equal(model.requests.length, before + 1);
	await press(' ');
	await until(frame, (f) => f.includes('✓ done'), 'done again');
	assert.equal(run.status, 'done');
	assert.ok(
		run.nodes.every((n) => n.status === 'done' || n.status === 'superseded'),
		'nothing left stale',
	);
	r.unmount();
});

test('space on a run left stale runs what is left, even after a run made step by step', async () => {
	const book = randomBook(5, 50);
	const { run, engine } = await setUp(
		book,
		{ method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		new FakeModel({ seed: 5 }),
	);
	const { press, frame, r } = await mount(engine);
	// The run is made with s, one call a press: the gate is left holding calls.
	while (run.status !== 'done') {
		const calls = engine.totals.calls;
		await press('s');
		await until(
			() => `${engine.totals.calls} ${run.status}`,
			(x) => Number(x.split(' ')[0]) > calls || x.endsWith('done'),
			'the step',
		);
	}
	await until(frame, (f) => f.includes('✓ done'), 'done');
	const leaf = run.nodes.find((n) => n.level === 0)!;
	await engine.edit(leaf.id, `${textOf(run, leaf.id)} Edited.`);
	await until(frame, (f) => f.includes('○ idle'), 'idle with stale nodes');
	await press(' ');
	await until(frame, (f) => f.includes('✓ done'), 'done again');
	assert.ok(
		run.nodes.every((n) => n.status === 'done' || n.status === 'superseded'),
		'nothing left stale',
	);
	r.unmount();
});

test('stepping an incremental run, the selection stays on the step that ran, not the next one not run yet', async () => {
	const book = randomBook(9, 60);
	const model = new FakeModel({ seed: 9 });
	const { run, engine } = await setUp(
		book,
		{ method: 'inc', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		model,
	);
	const { press, frame, r } = await mount(engine);
	for (let step = 1; step <= 3; step++) {
		await press('s');
		// The call made, and the next step waiting at the gate.
		await until(
			() => `${engine.totals.calls} ${run.nodes.some((n) => n.status === 'running')}`,
			(x) => x === `${step} true`,
			`step ${step}`,
		);
		const ran = run.nodes.filter((n) => n.status === 'done').at(-1)!;
		const f = await until(
			frame,
			(x) => x.includes('stepping') && x.includes(`${ran.id} `),
			`the step that ran, ${ran.id}`,
		);
		assert.match(
			f,
			new RegExp(`^node ${ran.id} · (summary|update) · .* · done`, 'mu'),
			'the step that ran is selected',
		);
		assert.doesNotMatch(f, /not run yet/u);
	}
	await press(' ');
	await until(frame, (f) => f.includes('✓ done'), 'done');
	r.unmount();
});

test('the printed final summary wraps at the width with no line starting with a space, and a line that fills the width exactly stays one line', async () => {
	const { render } = await import('ink-testing-library');
	const { Final } = await import('../../source/ui/components/Final.tsx');
	// "aaaa bbbb" fills 9 columns exactly; every break falls on a space.
	const text = 'aaaa bbbb cccc dddd eeee ffff gg hh ii jj\nIn M. Waldman I found a true friend.';
	const r = render(<Final title="t" stats="s" text={text} width={9} />);
	const lines = (r.lastFrame() ?? '').split('\n').slice(1, -2);
	r.unmount();
	assert.ok(lines.length > 0);
	for (const line of lines) {
		assert.ok(line.length <= 9, JSON.stringify(line));
		assert.doesNotMatch(line, /^ /u, JSON.stringify(lines));
	}
	assert.equal(lines[0], 'aaaa bbbb');
	assert.equal(lines.join(' ').replace(/\s+/gu, ' '), text.replace(/\s+/gu, ' '));
});

/** The header's "calls done/expected", and each level row's "done/expected" on the tree, of a frame. */
function counts(f: string) {
	const header = /(\d+)\/(\d+) calls/u.exec(f);
	const levels = new Map(
		[...f.matchAll(/^(L\d+) .*?(\d+)\/(\d+)\s*$/gmu)].map((m) => [
			m[1]!,
			{ done: Number(m[2]), total: Number(m[3]) },
		]),
	);
	return { calls: Number(header?.[1]), planned: Number(header?.[2]), levels };
}

test("at 80×24, stepping a hierarchical run, a level of the tree counts the nodes the run expects of it, not those planned so far, and the levels add up to the header's calls", async (t) => {
	// Enough chunks for three merges above them, planned one at a time.
	const { run, engine } = await setUp(
		randomBook(7, 300),
		{ method: 'hier', chunkSize: 300, contextWindow: 1500, maxSummary: 200, concurrency: 1, clean: false },
		new FakeModel({ seed: 3 }),
	);
	const { r, press, frame, store } = await mount(engine);
	// A failure leaves no run at its gate nor a screen reading the keyboard, which would keep the test alive.
	t.after(() => {
		engine.cancel();
		r.unmount();
	});
	resize(r, 80, 24);
	const merges = () => run.nodes.filter((n) => n.level === 1 && n.status !== 'superseded');
	for (let step = 1; merges().length === 0; step++) {
		await press('s');
		await waitFor(`call ${step}`, () => engine.totals.calls >= step);
	}
	const f = await until(
		frame,
		(x) => counts(x).levels.has('L2') && counts(x).calls === engine.totals.calls,
		'the merges on the tree',
	);
	const shown = counts(f);
	const l2 = shown.levels.get('L2')!.total;
	assert.ok(
		l2 > merges().length,
		`L2 counts ${l2} merges, as many as are planned so far (${merges().length}):\n${f}`,
	);
	assert.equal(shown.levels.get('L1')?.total, run.chunks.length, f);
	const expected = store.current.levels;
	assert.equal(l2, expected[1], f);
	// No call was made twice (the fake model keeps to its budgets): one call a node.
	assert.equal(
		expected.reduce((sum, n) => sum + n, 0),
		shown.planned,
		`the levels' nodes (${expected.join(' + ')}) are the header's calls:\n${f}`,
	);
});

test("at 80×24, stepping an incremental run, the timeline's total is the header's", async (t) => {
	const { engine, run } = await setUp(
		randomBook(9, 60),
		{ method: 'inc', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		new FakeModel({ seed: 9 }),
	);
	const { press, frame, r } = await mount(engine);
	t.after(() => {
		engine.cancel();
		r.unmount();
	});
	resize(r, 80, 24);
	for (let step = 1; step <= 3; step++) {
		await press('s');
		await waitFor(`call ${step}`, () => engine.totals.calls >= step);
		const f = await until(
			frame,
			(x) => x.includes(`${step}/`) && /call \d+\/\d+/u.test(x) && counts(x).calls === step,
			`the header after call ${step}`,
		);
		const [, at, total] = /call (\d+)\/(\d+)/u.exec(f)!;
		assert.ok(Number(at) <= step + 1, f);
		assert.equal(Number(total), counts(f).planned, `the timeline's total is the header's:\n${f}`);
		assert.ok(Number(total) >= run.chunks.length, f);
	}
});

test("at 80 columns the selected node's budget line and the help are whole: nothing is cut, an incremental step says what its words aim at", async (t) => {
	for (const method of ['hier', 'inc'] as const) {
		const { engine } = await finished(method);
		const { r, press, frame } = await mount(engine);
		t.after(() => r.unmount());
		resize(r, 80, 24);
		const f = await until(
			frame,
			(x) => x.includes('✓ done') && / · actual /u.test(x),
			`${method}: the finished run`,
		);
		const line = f.split('\n').find((l) => / · actual /u.test(l))!;
		assert.ok(!line.includes('…'), `${method}: the budget line is cut: ${line}`);
		assert.match(line, /\d+ calls?\b/u, line);
		if (method === 'inc')
			assert.match(
				line,
				/^aim [\d,]+ w(ords)? \([\d,]+ at the end\) · limit [\d,]+ tok(ens)? · actual /u,
				line,
			);
		else assert.match(line, /^budget [\d,]+ w(ords)? \/ [\d,]+ tok(ens)? · actual /u, line);
		await press('?');
		const help = await until(frame, (x) => x.includes('esc or ? closes'), `${method}: the help`);
		const rows = help.split('\n');
		assert.deepEqual(
			rows.filter((row) => row.trimEnd().endsWith('…')),
			[],
			`${method}: help rows cut at 80 columns:\n${help}`,
		);
		r.unmount();
	}
});
