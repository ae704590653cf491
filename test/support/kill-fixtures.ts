// What the kill-at-each-write tests (test/kill-at-write*.test.ts) share: the small book, its runs, a
// fake API that records what it is asked, and what a run leaves.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Session } from '../../source/store/session.ts';
import { booook } from './cli.ts';
import { startFakeApi, type RespondInput } from './fake-api.ts';

/**
 * The kill-at-each-write tests' book: small enough that each try takes seconds, with distinct
 * sentences, in two chunks of 1,024 tokens and a merge.
 */
function smallBook(): string {
	const names = ['Ada', 'Bram', 'Cleo', 'Dov', 'Esme', 'Finn', 'Gwen', 'Hugo'];
	const paragraphs: string[] = [];
	for (let p = 0; p < 30; p++) {
		const who = names[p % names.length]!;
		const other = names[(p * 3 + 1) % names.length]!;
		paragraphs.push(
			`${who} walked to the mill on day ${p + 1} and spoke with ${other} about the river. ` +
				`The water rose ${p % 5} feet that night, and ${other} counted ${p * 7} sacks of grain. ` +
				`Later ${who} wrote a letter to the magistrate about the bridge at the ${p % 2 ? 'north' : 'south'} ford.`,
		);
	}
	return `${paragraphs.join('\n\n')}\n`;
}

/** The small book written to `dir/mill.txt`; resolves its path. */
export async function bookFile(dir: string): Promise<string> {
	const file = join(dir, 'mill.txt');
	await writeFile(file, smallBook());
	return file;
}

/** A finished extractive run of the small book, session `mill`, made without a kill. */
export async function extractiveMill(sessions: string, book: string): Promise<void> {
	const made = await booook([
		'run',
		book,
		'--provider',
		'extractive',
		'--chunk-size',
		'1024',
		'--headless',
		'--session',
		'mill',
		'--sessions-dir',
		sessions,
	]);
	assert.equal(made.code, 0, made.stderr);
}

/** A fake API that records each prompt it answers, in order. */
export async function recordingApi(
	t: { after: (fn: () => Promise<void>) => void },
	reply: (input: RespondInput) => string,
) {
	let asked: string[] = [];
	const api = await startFakeApi({
		respond: (input) => {
			asked.push(input.prompt);
			return reply(input);
		},
	});
	t.after(() => api.close());
	const take = () => {
		const taken = asked;
		asked = [];
		return taken;
	};
	return { api, take };
}

/** What a run leaves that must not depend on a kill: every node's texts and status, and the final node. */
export async function runOutcome(sessions: string, id: string) {
	const { data } = await Session.snapshot(sessions, id);
	if (data.kind !== 'book') throw new Error('not a run');
	return {
		status: data.run.status,
		root: data.run.root,
		nodes: data.run.nodes.map((n) => [n.id, n.status, n.active, n.versions.map((v) => v.text)]),
	};
}
