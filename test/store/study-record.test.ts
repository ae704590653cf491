import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { StudyRecord } from '../../source/store/study-record.ts';
import { tempDir } from '../support/temp.ts';

const key = (i: number) => `book-${String(i).padStart(4, '0')}/hier-openai-gpt-4o-mini-c2048-w8192`;
const session = (i: number) => `big-book-${String(i).padStart(4, '0')}-hier-openai-gpt-4o-mini-c2048-w8192`;

test('a study record: each cell change writes the same few bytes however many cells there are, and the record is whole again once closed', async () => {
	const dir = tempDir('study-record');
	const record = await StudyRecord.open(dir, 'big');
	const file = StudyRecord.fileOf(dir, 'big');
	const journal = StudyRecord.journalOf(dir, 'big');
	const opened = readFileSync(file, 'utf8');
	const size = () => (existsSync(journal) ? statSync(journal).size : 0);
	const grown: number[] = [];
	for (let i = 0; i < 400; i++) {
		const before = size();
		await record.set(key(i), session(i), 'running');
		grown.push(size() - before);
	}
	// The 400th cell costs what the first did: one line, nothing in proportion to the cells before it.
	assert.ok(grown[0]! > 0 && grown[0]! < 300, String(grown[0]));
	assert.deepEqual(new Set(grown), new Set([grown[0]]));
	assert.equal(readFileSync(file, 'utf8'), opened, 'the record itself is not rewritten per change');
	// An unchanged state writes nothing.
	await record.set(key(7), session(7), 'running');
	assert.equal(
		size(),
		grown.reduce((s, n) => s + n, 0),
	);
	await record.set(key(7), session(7), 'done');

	// Read while the study runs: the journal is part of the record.
	const seen = await StudyRecord.peek(dir, 'big');
	assert.equal(Object.keys(seen!.cells).length, 400);
	assert.deepEqual(seen!.cells[key(7)], { session: session(7), status: 'done' });

	await record.close();
	assert.ok(!existsSync(journal), 'the journal goes once the record holds it');
	const closed = JSON.parse(readFileSync(file, 'utf8')) as { cells: Record<string, { status: string }> };
	assert.equal(Object.keys(closed.cells).length, 400);
	assert.equal(closed.cells[key(7)]!.status, 'done');
	assert.equal(closed.cells[key(8)]!.status, 'running');
});

test('a study record after a kill: the journal left is read back (a torn last line ends it), replaying what the record holds changes nothing', async () => {
	const dir = tempDir('study-record-kill');
	const first = await StudyRecord.open(dir, 'k');
	await first.set(key(1), session(1), 'done');
	await first.close();
	// As a killed process leaves it: lines appended since the record was last written whole, the
	// first of them already in the record (killed between writing the record and removing the
	// journal), the last cut short.
	const at = new Date().toISOString();
	const line = (i: number, status: string) =>
		`${JSON.stringify({ at, cell: key(i), session: session(i), status })}\n`;
	writeFileSync(
		StudyRecord.journalOf(dir, 'k'),
		`${line(1, 'done')}${line(2, 'running')}${line(3, 'failed')}{"at":"${at}","cell":"${key(4)}","sess`,
	);
	const seen = await StudyRecord.peek(dir, 'k');
	assert.deepEqual(Object.fromEntries(Object.entries(seen!.cells).map(([k, c]) => [k, c.status])), {
		[key(1)]: 'done',
		[key(2)]: 'running',
		[key(3)]: 'failed',
	});

	const again = await StudyRecord.open(dir, 'k');
	assert.ok(!existsSync(StudyRecord.journalOf(dir, 'k')), 'opening folds the journal into the record');
	assert.deepEqual(JSON.parse(readFileSync(StudyRecord.fileOf(dir, 'k'), 'utf8')).cells, seen!.cells);
	await again.set(key(4), session(4), 'running');
	await again.close();
	assert.equal(Object.keys((await StudyRecord.peek(dir, 'k'))!.cells).length, 4);
});
