/**
 * The run screen under streaming load: a hierarchical run of Pride and Prejudice with 6 nodes
 * streaming at once, rendered by Ink into a fake 120×40 terminal at the app's frame cap.
 *
 *   1. 10,000 deltas as fast as they come: CPU time per delta, and how many frames were drawn.
 *   2. 200 deltas/s for a few seconds (a fast model on 6 streams): the process's CPU share.
 *      Goal: under 30% of one core.
 *
 *   node --import tsx bench/render.ts [--deltas 10000] [--rate 200] [--seconds 5]
 */
import { readFileSync } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { createElement } from 'react';
import { render } from 'ink';
import type { NodeRef, RunStatus } from '../source/domain.ts';
import type { EngineEvent } from '../source/engine/events.ts';
import { inkFps, MAX_FPS } from '../source/ui/app.tsx';
import type { RunControls } from '../source/ui/controls.ts';
import { Root } from '../source/ui/root.tsx';
import { RunScreen } from '../source/ui/screens/run/Screen.tsx';
import { ViewFeed } from '../source/ui/state/view-feed.ts';
import { initialView } from '../source/ui/state/view.ts';
import { FakeModel } from '../test/support/fake-model.ts';
import { setUp } from '../test/support/run-harness.ts';
import { PRIDE_AND_PREJUDICE } from '../test/support/repo-data.ts';

const { values } = parseArgs({
	options: {
		deltas: { type: 'string', default: '10000' },
		rate: { type: 'string', default: '200' },
		seconds: { type: 'string', default: '5' },
	},
});
const DELTAS = Number(values.deltas);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const STREAMS = 6;
const DELTAS_PER_NODE = 60;

const book = readFileSync(PRIDE_AND_PREJUDICE, 'utf8');
// A finished run gives every node real inputs and texts; the bench replays it as if it were live.
const { engine, run } = await setUp(
	book,
	{
		method: 'hier',
		chunkSize: 512,
		maxSummary: 300,
		contextWindow: 2048,
		concurrency: STREAMS,
		clean: false,
	},
	new FakeModel({ seed: 1 }),
);
if ((await engine.start()) !== 'done') throw new Error('the fixture run did not finish');
const level0 = run.nodes.filter((n) => n.level === 0);

const listeners = new Set<(e: EngineEvent) => void>();
const emit = (event: EngineEvent) => {
	for (const l of listeners) l(event);
};
const controls: RunControls = {
	run,
	pause() {},
	resume() {},
	step() {},
	cancel() {},
	start: () => new Promise<RunStatus>(() => {}),
	edit: async () => [],
	rerun: async () => [],
	setActive: async () => [],
	on(listener) {
		listeners.add(listener);
		return () => listeners.delete(listener);
	},
};

// A terminal that counts what is written to it.
let writes = 0;
let bytes = 0;
const stdout = Object.assign(
	new Writable({
		write(chunk, _encoding, done) {
			writes++;
			bytes += chunk.length;
			done();
		},
	}),
	{ isTTY: true, columns: 120, rows: 40 },
) as unknown as NodeJS.WriteStream;
const stdin = Object.assign(new PassThrough(), {
	isTTY: true,
	setRawMode() {},
	ref() {},
	unref() {},
}) as unknown as NodeJS.ReadStream;

const feed = new ViewFeed(initialView(run), { fps: MAX_FPS, run: () => run });
controls.on(feed.dispatch);
let frames = 0;
const instance = render(
	createElement(
		Root,
		null,
		createElement(RunScreen, {
			controls,
			feed,
			info: {
				session: 'bench',
				title: 'Pride and Prejudice',
				book,
				provider: 'openai',
				model: 'fake',
				isLLM: true,
				priced: true,
			},
			start() {},
			quit() {},
		}),
	),
	{
		stdout,
		stdin,
		stderr: stdout,
		exitOnCtrlC: false,
		patchConsole: false,
		maxFps: inkFps(MAX_FPS),
		onRender: () => frames++,
	},
);

// The replay: level 0 planned, STREAMS nodes streaming at once; a node finishes after
// DELTAS_PER_NODE deltas and the next one starts.
emit({
	type: 'run-started',
	session: 'bench',
	method: 'hier',
	provider: 'openai',
	model: 'fake',
	isLLM: true,
	planned: run.nodes.length,
	levels: [],
	done: 0,
});
emit({
	type: 'node-planned',
	planned: run.nodes.length,
	levels: [],
	nodes: level0.map((n) => ({ id: n.id, kind: n.kind, level: n.level, index: n.index, inputs: n.inputs })),
});
let nextNode = 0;
const streaming: { id: NodeRef; sent: number; words: string[] }[] = [];
const startNext = () => {
	const node = level0[nextNode++ % level0.length]!;
	emit({ type: 'node-started', node: node.id, kind: node.kind, level: 0, index: node.index, attempt: 0 });
	streaming.push({ id: node.id, sent: 0, words: node.versions[0]!.text.split(' ') });
};
for (let i = 0; i < STREAMS; i++) startNext();
let delta = 0;
const sendDelta = () => {
	const s = streaming[delta++ % streaming.length]!;
	emit({ type: 'delta', node: s.id, attempt: 0, text: `${s.words[s.sent % s.words.length]} ` });
	if (++s.sent >= DELTAS_PER_NODE) {
		streaming.splice(streaming.indexOf(s), 1);
		const node = level0.find((n) => n.id === s.id)!;
		emit({
			type: 'node-finished',
			node: s.id,
			kind: node.kind,
			level: 0,
			index: node.index,
			words: 50,
			tokens: 60,
			attempts: 1,
			overBudget: false,
		});
		startNext();
	}
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

// 1. As fast as possible (the event loop gets a turn every 100 deltas, as network reads give it).
await pause(200);
let cpu = process.cpuUsage();
let wall = performance.now();
let framesBefore = frames;
for (let i = 0; i < DELTAS; i++) {
	sendDelta();
	if (i % 100 === 99) await new Promise((r) => setImmediate(r));
}
await pause(100);
let used = process.cpuUsage(cpu);
let elapsed = performance.now() - wall;
const burstFrames = frames - framesBefore;
console.log(
	`burst: ${DELTAS} deltas in ${Math.round(elapsed)} ms; CPU ${((used.user + used.system) / DELTAS).toFixed(1)} µs per delta; ${burstFrames} frames drawn (cap ${MAX_FPS}/s); ${feed.published} snapshots published`,
);

// 2. Paced: RATE deltas a second, sent every 20 ms in small groups, as several streams would.
await pause(300);
cpu = process.cpuUsage();
wall = performance.now();
framesBefore = frames;
const writesBefore = writes;
const bytesBefore = bytes;
const total = RATE * SECONDS;
let sent = 0;
while (sent < total) {
	const due = Math.min(total, Math.floor(((performance.now() - wall) / 1000) * RATE));
	while (sent < due) {
		sendDelta();
		sent++;
	}
	await pause(20);
}
used = process.cpuUsage(cpu);
elapsed = performance.now() - wall;
const share = (used.user + used.system) / 1000 / elapsed;
console.log(
	`paced: ${total} deltas at ${RATE}/s over ${(elapsed / 1000).toFixed(1)} s; CPU share ${(share * 100).toFixed(1)}% of one core (goal < 30%); ${frames - framesBefore} frames, ${writes - writesBefore} writes, ${Math.round((bytes - bytesBefore) / 1024)} KiB to the terminal`,
);
console.log(
	`cpu-share ratio to goal: ${(share / 0.3).toFixed(2)} (${process.env.NODE_ENV === 'production' ? 'React production build' : 'React development build; NODE_ENV=production is lighter'})`,
);

instance.unmount();
feed.dispose();
