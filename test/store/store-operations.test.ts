import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { nodeSchema, type Node } from '../../source/domain.ts';
import { makeConfig } from '../../source/config.ts';
import { bookSession, Session, type BookSessionData } from '../../source/store/session.ts';
import { firstLine } from '../support/children.ts';
import { tempDir } from '../support/temp.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SESSION_MODULE = new URL('../../source/store/session.ts', import.meta.url).href;

/** zod's own description of a schema: its kind and what it is made of. */
interface Def {
	type: string;
	innerType?: z.ZodType;
	element?: z.ZodType;
	shape?: Record<string, z.ZodType>;
	valueType?: z.ZodType;
	entries?: Record<string, string>;
	options?: z.ZodType[];
	format?: string;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The plainest value `schema` accepts: what a field holds before anything is done to it. */
function sample(schema: z.ZodType): unknown {
	const def = defOf(schema);
	switch (def.type) {
		case 'object':
			return Object.fromEntries(
				Object.entries(def.shape!)
					.filter(([, field]) => defOf(field).type !== 'optional')
					.map(([key, field]) => [key, sample(field)]),
			);
		case 'array':
			return [];
		case 'record':
			return {};
		case 'nullable':
			return null;
		case 'optional':
			return undefined;
		case 'enum':
			return Object.values(def.entries!)[0];
		case 'number':
			return 0;
		case 'boolean':
			return false;
		case 'string':
			return def.format === 'datetime' ? new Date(0).toISOString() : 'x';
		case 'template_literal':
			return 'c0';
		case 'union':
			return sample(def.options![0]!);
	}
	throw new Error(`no sample value for a zod ${def.type}: teach this test one`);
}

/** A value `schema` accepts that differs from `value`. */
function changed(schema: z.ZodType, value: unknown): unknown {
	const def = defOf(schema);
	switch (def.type) {
		case 'optional':
		case 'nullable':
			return value === undefined || value === null ? sample(def.innerType!) : changed(def.innerType!, value);
		case 'array':
			return [...(value as unknown[]), sample(def.element!)];
		case 'object': {
			const [key, field] = Object.entries(def.shape!)[0]!;
			const object = value as Record<string, unknown>;
			return { ...object, [key]: changed(field, object[key]) };
		}
		case 'record': {
			const record = value as Record<string, unknown>;
			return { ...record, [`k${Object.keys(record).length}`]: sample(def.valueType!) };
		}
		case 'enum':
			return Object.values(def.entries!).find((option) => option !== value);
		case 'number':
			return (value as number) + 1;
		case 'boolean':
			return !value;
		case 'string':
			return def.format === 'datetime'
				? new Date(Date.parse(value as string) + 1000).toISOString()
				: `${value as string} changed`;
		case 'template_literal':
			return (value as string).replace(/\d+$/u, (n) => String(Number(n) + 1));
	}
	throw new Error(`no way to change a zod ${def.type}: teach this test one`);
}

/** A session over a one-chunk book whose run has no node yet. */
async function emptyRun(dir: string, id: string): Promise<void> {
	const text = 'The rain fell. The river rose.\n';
	const session = await Session.create(dir, {
		id,
		text,
		book: {
			title: 'Rain',
			sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
			source: 'rain.txt',
			chars: text.length,
			tokens: 8,
		},
		run: {
			config: makeConfig({ provider: 'extractive', model: 'textrank', method: 'hier', seed: 1 }),
			status: 'planned',
			chunks: [{ index: 0, start: 0, end: text.length, tokens: 8 }],
			nodes: [],
			root: null,
			error: null,
		},
	});
	await session.close();
}

/** Runs `body` on session `id` of `dir`, open, and closes it after. */
async function opened(
	dir: string,
	id: string,
	body: (session: Session<BookSessionData>) => Promise<void>,
): Promise<void> {
	const session = bookSession(await Session.open(dir, id));
	try {
		await body(session);
	} finally {
		await session.close();
	}
}

test('every field of the node schema is journaled: changed through the operations, it is there after a kill', async () => {
	const dir = tempDir('operations');
	await emptyRun(dir, 'fields');
	const fields = Object.keys(nodeSchema.shape) as (keyof Node)[];
	// The node is added (which journals its id), then each other field changed in turn, each change
	// made to the node as the ones before it left it.
	const added = { ...(sample(nodeSchema) as Node), id: 'n1' as const };
	assert.ok(nodeSchema.safeParse(added).success, 'the sampled node is valid');
	const expected: Node = structuredClone(added);
	const patches: [keyof Node, unknown][] = [];
	for (const field of fields.filter((f) => f !== 'id')) {
		const value = changed(nodeSchema.shape[field], expected[field]);
		assert.notDeepEqual(value, expected[field], field);
		(expected as Record<string, unknown>)[field] = value;
		assert.ok(nodeSchema.safeParse(expected).success, `a changed ${field} is valid`);
		patches.push([field, value]);
	}

	// Another process makes the changes and is killed before it writes session.json whole.
	const code = `
		const { Session } = await import(${JSON.stringify(SESSION_MODULE)});
		const session = await Session.open(process.env.DIR, 'fields');
		await session.addNodes(JSON.parse(process.env.NODE));
		for (const [field, value] of JSON.parse(process.env.PATCHES))
			await session.updateNode('n1', { [field]: value });
		console.log('changed');
		setInterval(() => {}, 1000);`;
	const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
		cwd: ROOT,
		env: { ...process.env, DIR: dir, NODE: JSON.stringify(added), PATCHES: JSON.stringify(patches) },
	});
	const exited = new Promise((resolve) => child.once('exit', resolve));
	assert.equal(await firstLine(child), 'changed');
	child.kill('SIGKILL');
	await exited;

	const state = JSON.parse(await readFile(join(dir, 'fields', 'session.json'), 'utf8'));
	assert.deepEqual(state.run.nodes, [], 'session.json was not written whole: the journal holds the changes');
	await opened(dir, 'fields', async (reopened) => {
		const node = reopened.data.run.nodes.find((n) => n.id === 'n1');
		assert.ok(node, 'the added node (its id) survived the kill');
		for (const field of fields) assert.deepEqual(node[field], expected[field], `${field} survived the kill`);
		assert.equal(await reopened.lostWork(), null);
	});
});

test('an operation the schema refuses changes nothing, in memory or on disk', async () => {
	const dir = tempDir('operations');
	await emptyRun(dir, 'refused');
	await opened(dir, 'refused', async (session) => {
		const node = { ...(sample(nodeSchema) as Node), id: 'n1' as const };
		await session.addNodes(node);
		await assert.rejects(session.updateNode('n1', { active: 3 }), /active points past the last version/u);
		await assert.rejects(session.updateNode('n1', { level: -1 }), /level/u);
		await assert.rejects(session.updateNode('n9', { level: 1 }), /has no node n9/u);
		await assert.rejects(session.updateRun({ root: 'x' as never }), /root/u);
		assert.deepEqual(session.data.run.nodes, [node]);
		assert.equal(session.data.run.root, null);
		const { data } = await Session.snapshot(dir, 'refused');
		assert.deepEqual(data.kind === 'book' && data.run.nodes, [node]);
	});
});

test('updateNode with undefined removes an optional field, and the removal is journaled', async () => {
	const dir = tempDir('operations');
	await emptyRun(dir, 'removed');
	await opened(dir, 'removed', async (session) => {
		await session.addNodes({ ...(sample(nodeSchema) as Node), id: 'n1', error: 'it broke' });
		const held = session.data.run.nodes[0]!;
		await session.updateNode('n1', { error: undefined });
		assert.equal('error' in held, false, 'changed in place, where the engine holds it');
		const { data } = await Session.snapshot(dir, 'removed');
		assert.equal(data.kind === 'book' && 'error' in data.run.nodes[0]!, false);
	});
});

test('a journal an earlier booook wrote (one line a save: the head, changed nodes and new items together) still opens', async () => {
	const dir = tempDir('operations');
	await emptyRun(dir, 'earlier');
	const state = JSON.parse(await readFile(join(dir, 'earlier', 'session.json'), 'utf8'));
	const { summaries: _s, annotations: _a, judgments: _j, updatedAt: _u, ...head } = state;
	const { nodes: _n, chunks: _c, ...run } = state.run;
	const node = { ...(sample(nodeSchema) as Node), id: 'n1' as const };
	// As ChangeTracker wrote it: the whole head when any small field changed, and the nodes that did.
	const save = {
		at: '2030-01-01T00:00:00.000Z',
		head: { ...head, run: { ...run, status: 'running' } },
		nodes: [node],
	};
	await writeFile(
		join(dir, 'earlier', 'changes.jsonl'),
		`${JSON.stringify({ base: state.updatedAt })}\n${JSON.stringify(save)}\n`,
	);
	await opened(dir, 'earlier', async (session) => {
		assert.equal(session.data.run.status, 'running');
		assert.deepEqual(session.data.run.nodes, [node]);
		assert.equal(await session.lostWork(), null);
	});
});
