import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listSessions } from '../../source/app/list-sessions.ts';
import { awaitedInBatches, BatchJournal } from '../../source/store/batch-journal.ts';
import { readCallLog } from '../../source/store/calls.ts';
import { comparisonNameOf } from '../../source/store/comparison.ts';
import { booook } from './cli.ts';
import { promptOf, startFakeApi, type FakeApi, type RespondInput } from './fake-api.ts';
import { tempDir } from './temp.ts';

const PRELOAD = fileURLToPath(new URL('./kill-at-sync.mjs', import.meta.url));

/**
 * One command of booook that changes a session, as the kill-at-each-write harness drives it (the way
 * SQLite tests crash safety): killed with SIGKILL right after each of its durable writes in turn,
 * then run again to its end.
 */
export interface KillCase {
	/**
	 * The session the command works on; null for a command that works on sessions it names itself
	 * (a study's cells): then every session of the folder is checked.
	 */
	id: string | null;
	/** Makes the state the command starts from in a sessions folder (by commands never killed). */
	setup: (sessions: string) => Promise<void>;
	/** The command's arguments, for a sessions folder. */
	args: (sessions: string) => string[];
	/**
	 * The command that finishes the work after a kill (default: `args` again); `created`: whether the
	 * kill left the session made (a run killed after it is made goes on with `resume`; with `id`
	 * null, whether the folder holds any session).
	 */
	again?: (sessions: string, created: boolean) => string[];
	env?: Record<string, string>;
	/** What must come out the same as when the command is never killed (read from the folder). */
	outcome: (sessions: string) => Promise<unknown>;
	/**
	 * Files (by name, as the preload logs them: `batches.jsonl`) every write of which is killed
	 * after, besides the writes sampled: the ones where a kill is likeliest to cost something.
	 */
	alsoAfter?: string[];
	/** What the fake API was asked to buy since the last call, when the command makes model calls (`recordingApi`). */
	asked?: () => Bought[];
}

/**
 * One thing bought of a provider: a call answered, or a request submitted in a provider batch (with
 * its custom id), bought when submitted, since a provider runs and bills a batch whether or not
 * anyone comes back for its results.
 */
export interface Bought {
	/** The model asked: two models asked the same prompt (two cells of a study) are two purchases. */
	model: string;
	prompt: string;
	customId?: string;
}

/** What a purchase asked, as a call log records it. */
const asking = (b: { model: string; prompt: string }) => `${b.model}\n${b.prompt}`;

export interface KillReport {
	/** Durable writes of the command never killed. */
	writes: number;
	/** What each of them made durable: a file's name, or "(a folder)". */
	kinds: string[];
	/** The writes it was killed after. */
	killedAt: number[];
	/** Those after which requests were out in provider batches recorded, to be waited for, not bought again. */
	batchesOut: number[];
}

/** How one try at the work ended: its exit code or signal, and what it said (its stderr, or its screen). */
export interface Ended {
	code: number | null;
	signal: NodeJS.Signals | null;
	detail: string;
}

/**
 * Work that changes sessions, as the harness drives it, whether a headless command
 * (`killAtEachWrite`) or a screen typed into in a terminal (`test/support/durable-walks.ts`).
 */
export interface KillWork extends Pick<KillCase, 'id' | 'setup' | 'outcome' | 'alsoAfter' | 'asked'> {
	/**
	 * Does the work from its start in `sessions`, with `env` added to booook's environment (the
	 * preload's settings); `whole`: the try never killed, that the others are measured against.
	 */
	first: (sessions: string, env: Record<string, string>, whole: boolean) => Promise<Ended>;
	/** Finishes the work after a kill; `created`: whether the kill left the session made. */
	again: (sessions: string, created: boolean) => Promise<Ended>;
	/** How many writes to sample, unless BOOOOK_KILL_EVERY_WRITE=1 (default KILL_POINTS). */
	points?: number;
}

/** `killEach` over a headless command: each try is the real CLI. */
export function killAtEachWrite(c: KillCase): Promise<KillReport> {
	const cli = async (args: string[], env: Record<string, string> = {}): Promise<Ended> => {
		const ended = await booook(args, { env: { ...c.env, ...env } });
		return { code: ended.code, signal: ended.signal, detail: ended.stderr };
	};
	return killEach({
		id: c.id,
		setup: c.setup,
		outcome: c.outcome,
		alsoAfter: c.alsoAfter,
		asked: c.asked,
		first: (sessions, env) => cli(c.args(sessions), env),
		again: (sessions, created) => cli((c.again ?? c.args)(sessions, created)),
	});
}

/**
 * Runs `w` once whole (logging its durable writes), then for each write k sampled: from the same
 * start, kills it right after write k, checks that the session still lists and opens, finishes the
 * work, and checks that the outcome equals the whole run's and that nothing bought before the kill
 * (an answer logged, a request recorded in a provider batch) is bought again.
 */
export async function killEach(w: KillWork): Promise<KillReport> {
	const root = tempDir('kill-at-write');
	const start = join(root, 'start');
	await mkdir(start);
	await w.setup(start);
	const fresh = async (name: string) => {
		const dir = join(root, name);
		await cp(start, dir, { recursive: true });
		return dir;
	};
	const whole = await fresh('whole');
	const log = join(root, 'writes');
	w.asked?.();
	const done = await w.first(whole, preload({ BOOOOK_SYNC_LOG: log }), true);
	assert.equal(done.code, 0, `the work never killed: ${done.detail}`);
	const kinds = (await readFile(log, 'utf8')).split('\n').slice(0, -1);
	const writes = kinds.length;
	assert.ok(writes > 0, 'the work makes durable writes');
	const reference = await w.outcome(whole);
	const whole_asked = w.asked?.() ?? [];

	const killedAt: number[] = [];
	const batchesOut: number[] = [];
	for (const k of killPoints(kinds, w.alsoAfter, w.points)) {
		const dir = await fresh(`kill-${k}`);
		const killed = await w.first(dir, preload({ BOOOOK_KILL_AT_SYNC: String(k) }), false);
		assert.equal(killed.signal, 'SIGKILL', `killed after write ${k} of ${writes}: ${killed.detail}`);
		killedAt.push(k);
		const ids = w.id === null ? await sessionFolders(dir) : [w.id];
		const { answered, recorded } = await boughtOnDisk(dir, ids);
		const out = await Promise.all(ids.map((id) => awaitedInBatches(dir, id)));
		if (out.some((entries) => entries.length > 0)) batchesOut.push(k);
		const beforeKill = w.asked?.() ?? [];
		// The session lists as itself, never as a problem, and opens for the command run again.
		// A creation cut short holds no work, and says so; anything else is a session that will not open.
		const listed = await listSessions(dir);
		const cutCreation = listed.problems.filter(
			(p) => (w.id === null || p.id === w.id) && p.reason.includes('holds no work'),
		);
		assert.deepEqual(
			listed.problems.filter((p) => !cutCreation.includes(p)),
			[],
			`after write ${k}: the folder lists without problems`,
		);
		assert.ok(
			w.id === null || cutCreation.length > 0 || listed.some((s) => s.id === w.id),
			`after write ${k}: ${w.id} is listed`,
		);
		const created = w.id === null ? listed.length > 0 : existsSync(join(dir, w.id, 'session.json'));
		const again = await w.again(dir, created);
		assert.equal(again.code, 0, `run again after write ${k}: ${again.detail}`);
		const after = w.asked?.() ?? [];
		assert.deepEqual(
			after.filter((b) => answered.has(asking(b))).map(asking),
			[],
			`after write ${k}: no answer logged before the kill is bought again`,
		);
		assert.deepEqual(
			after.filter((b) => b.customId !== undefined && recorded.has(b.customId)).map((b) => b.customId),
			[],
			`after write ${k}: no request recorded as out in a provider batch is submitted again`,
		);
		// A batch created but not yet recorded when the process died is lost to it: its requests
		// are submitted again, the one purchase a kill may repeat besides a call in flight.
		const unrecorded = beforeKill.filter((b) => b.customId !== undefined && !recorded.has(b.customId)).length;
		assert.ok(
			beforeKill.length + after.length <= whole_asked.length + 1 + unrecorded,
			`after write ${k}: the killed command and its rerun bought ${beforeKill.length} + ${after.length}, the whole one ${whole_asked.length} (one call in flight may be bought twice, and ${unrecorded} batched requests not recorded)`,
		);
		assert.deepEqual(await w.outcome(dir), reference, `after write ${k}: the same outcome as never killed`);
	}
	return { writes, kinds, killedAt, batchesOut };
}

/**
 * The writes to kill after (numbered from 1), given what each made durable. Every one when
 * BOOOOK_KILL_EVERY_WRITE=1 (a full sweep, minutes per command); else, to bound CI's time,
 * `points` of them: the first few (the session made, the first journal line and call), the last
 * few (the closing writes), every write of the files named in `also`, and evenly spaced ones
 * between (at least one).
 */
function killPoints(kinds: readonly string[], also: readonly string[] = [], points = KILL_POINTS): number[] {
	const all = kinds.map((_, i) => i + 1);
	if (process.env.BOOOOK_KILL_EVERY_WRITE === '1' || all.length <= points) return all;
	const first = Math.min(4, Math.floor(points / 3));
	const last = Math.min(3, Math.floor(points / 4));
	const fixed = new Set([
		...all.slice(0, first),
		...all.slice(-last),
		...all.filter((k) => also.includes(kinds[k - 1]!)),
	]);
	const middle = all.slice(first, -last).filter((k) => !fixed.has(k));
	const spaced = Math.min(middle.length, Math.max(1, points - fixed.size));
	const picked = Array.from(
		{ length: spaced },
		(_, i) => middle[Math.floor(((i + 0.5) * middle.length) / spaced)]!,
	);
	return [...new Set([...fixed, ...picked])].sort((a, b) => a - b);
}

const KILL_POINTS = 10;

/** A report as a test's diagnostic line: the writes, and the ones killed after with what each made durable. */
export function killDiagnostic(report: KillReport): string {
	const killed = report.killedAt.map((k) => `${k} (${report.kinds[k - 1]})`);
	return `${report.writes} durable writes; killed after ${killed.join(', ')}`;
}

/** The session folders of a sessions dir (a creation under way is a hidden folder; a comparison's is none). */
async function sessionFolders(dir: string): Promise<string[]> {
	const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
	return entries
		.filter((e) => e.isDirectory() && !e.name.startsWith('.') && comparisonNameOf(e.name) === null)
		.map((e) => e.name);
}

/**
 * What sessions `ids` hold as bought: what their call logs answered (model and prompt), and the custom ids of
 * requests their batch journals record as out in a provider batch, not given up on.
 */
async function boughtOnDisk(dir: string, ids: string[]) {
	const answered = new Set<string>();
	const recorded = new Set<string>();
	for (const id of ids) {
		for (const call of (await readCallLog(join(dir, id, 'calls.jsonl'))).calls) answered.add(asking(call));
		const latest = new Map((await BatchJournal.open(join(dir, id))).entries.map((e) => [e.customId, e]));
		for (const [customId, entry] of latest) if (entry.settled === undefined) recorded.add(customId);
	}
	return { answered, recorded };
}

/**
 * A fake API answering by `reply` that records what it is asked to buy, for a kill case's `asked`:
 * each call it answers, and each request of a provider batch as the batch is submitted (a batch's
 * requests answered when it is polled were bought already).
 */
export async function recordingApi(
	t: { after: (fn: () => Promise<void>) => void },
	reply: (input: RespondInput) => string,
): Promise<{ api: FakeApi; take: () => Bought[] }> {
	let asked: Bought[] = [];
	let batchesSeen = 0;
	const api = await startFakeApi({
		respond: (input) => {
			if (input.batch === undefined) asked.push({ model: String(input.body.model), prompt: input.prompt });
			return reply(input);
		},
	});
	t.after(() => api.close());
	const take = () => {
		for (const batch of api.batches.slice(batchesSeen))
			for (const item of batch.items)
				asked.push({
					model: String(item.body.model),
					prompt: promptOf(batch.api, item.body),
					customId: item.customId,
				});
		batchesSeen = api.batches.length;
		const taken = asked;
		asked = [];
		return taken;
	};
	return { api, take };
}

function preload(vars: Record<string, string>): Record<string, string> {
	return { NODE_OPTIONS: `--import=${PRELOAD}`, ...vars };
}
