import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Session } from '../../source/store/session.ts';
import { StudyRecord } from '../../source/store/study-record.ts';
import { booook } from '../support/cli.ts';
import { digestReply } from '../support/digest-reply.ts';
import { killAtEachWrite, killDiagnostic, recordingApi } from '../support/durable-writes.ts';
import { annotationReply } from '../support/fake-api.ts';
import { faithfulnessReply } from '../support/faithfulness-reply.ts';
import { memoryReply } from '../support/memory-reply.ts';
import { bookFile, extractiveMill, otherBook } from '../support/mill-book.ts';
import { annotationsOutcome, runOutcome, unordered, withoutTimes } from '../support/session-outcome.ts';
import { summaryReply } from '../support/summary-reply.ts';
import { tempDir } from '../support/temp.ts';

/**
 * The passes over a finished session and the commands that make sessions other than `run`, killed
 * with SIGKILL right after each of their durable writes (test/support/durable-writes.ts) and run
 * again: the judge, the memory probes, an imported summary and a batched study finish as if never
 * killed, and buy nothing twice.
 */

const ENV = { OPENAI_API_KEY: 'sk-test-not-a-real-key' };

test('faithfulness killed after each durable write finishes as if never killed', async (t) => {
	const { api, take } = await recordingApi(
		t,
		({ prompt }) => faithfulnessReply(prompt) ?? 'not a faithfulness prompt',
	);
	const book = await bookFile(tempDir('kill-faith-book', t));
	const report = await killAtEachWrite({
		id: 'mill',
		// A final summary of three sentences: a judging of a few calls.
		setup: (sessions) => extractiveMill(sessions, book, '--max-summary', '80'),
		args: (sessions) => [
			'faithfulness',
			'mill',
			...['--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', api.openaiBaseUrl],
			...['--concurrency', '1', '--sessions-dir', sessions],
		],
		env: ENV,
		outcome: async (sessions) => {
			const { data } = await Session.snapshot(sessions, 'mill');
			return { summaries: data.summaries.map((s) => s.text), verdicts: unordered(data.faithfulness) };
		},
		asked: take,
	});
	t.diagnostic(killDiagnostic(report));
});

test('memory killed after each durable write finishes as if never killed', async (t) => {
	const { api, take } = await recordingApi(
		t,
		({ prompt }) => memoryReply(prompt) ?? digestReply({ prompt }) ?? 'Nothing happens.',
	);
	const books = tempDir('kill-memory-books', t);
	const mill = await bookFile(books);
	const ferry = await bookFile(books, 'ferry.txt', otherBook());
	const model = ['--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', api.openaiBaseUrl];
	const report = await killAtEachWrite({
		id: 'mill',
		// An incremental run of the mill to probe, and an extractive one of the ferry: scenes of both
		// are written of 100-word stretches, enough of the ferry's for other-book options.
		setup: async (sessions) => {
			for (const [book, id, how] of [
				[mill, 'mill', [...model, '--chunk-size', '1024', '--method', 'inc', '--concurrency', '1']],
				[ferry, 'ferry', ['--provider', 'extractive', '--chunk-size', '256', '--method', 'hier']],
			] as const) {
				const made = await booook(
					['run', book, ...how, '--headless', '--session', id, '--sessions-dir', sessions],
					{ env: ENV },
				);
				assert.equal(made.code, 0, made.stderr);
			}
		},
		args: (sessions) => [
			'memory',
			'mill',
			...model,
			...[
				'--questions',
				'3',
				'--steps',
				'1',
				'--scenes',
				'100',
				'--concurrency',
				'1',
				'--sessions-dir',
				sessions,
			],
		],
		env: ENV,
		outcome: async (sessions) => {
			const { data } = await Session.snapshot(sessions, 'mill');
			return {
				scenes: unordered(data.memoryScenes),
				questions: unordered(data.memoryQuestions),
				answers: unordered(data.memoryAnswers),
			};
		},
		asked: take,
	});
	t.diagnostic(killDiagnostic(report));
});

test('import summary killed after each durable write leaves no half session, and the same import then makes it whole', async (t) => {
	const dir = tempDir('kill-import-files', t);
	const book = await bookFile(dir);
	const summary = join(dir, 'summary.txt');
	await writeFile(
		summary,
		'Ada and Bram talk about the river at the mill. The magistrate hears of the bridge at the north ford.\n',
	);
	const at = (sessions: string) => ['--session', 'mine', '--sessions-dir', sessions];
	const report = await killAtEachWrite({
		id: 'mine',
		setup: async () => {},
		args: (sessions) => ['import', 'summary', '--book', book, '--summary', summary, ...at(sessions)],
		// Once made it is whole: the session is looked at, not imported again (its id is taken).
		again: (sessions, created) =>
			created
				? ['show', 'mine', '--sessions-dir', sessions]
				: ['import', 'summary', '--book', book, '--summary', summary, ...at(sessions)],
		outcome: async (sessions) => {
			// Opened for writing, as a command that works on it would (a dead process's lock taken over).
			await (await Session.open(sessions, 'mine')).close();
			// The book's text is read against its sha256 here.
			const { data } = await Session.snapshot(sessions, 'mine');
			if (data.kind !== 'book') throw new Error('not a book session');
			return {
				// A creation cut short is removed by the import run again: nothing else is left.
				folder: (await readdir(sessions)).sort(),
				book: data.book,
				chunks: data.run.chunks,
				imported: withoutTimes(data.run.imported),
				nodes: unordered(data.run.nodes),
			};
		},
	});
	t.diagnostic(killDiagnostic(report));
});

test('a study in provider batches killed after each durable write finishes as if never killed, submitting no recorded request again', async (t) => {
	const { api, take } = await recordingApi(
		t,
		(input) => annotationReply(input.prompt) ?? summaryReply(input),
	);
	const dir = tempDir('kill-study-files', t);
	const file = join(dir, 'mills.json');
	// Two cells whose requests share each batch, so a kill can fall between the two sessions'
	// records of one batch; their runs batched through OpenAI, their scoring through Anthropic.
	await writeFile(
		file,
		JSON.stringify({
			name: 'mills',
			books: [await bookFile(dir), await bookFile(dir, 'ferry.txt', otherBook())],
			methods: ['hier'],
			providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl: api.openaiBaseUrl }],
			scorer: { provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: api.anthropicBaseUrl },
			chunkSizes: [1024],
			score: true,
			concurrency: 1,
			batch: { poll: 0.02, gather: 0.1 },
		}),
	);
	const report = await killAtEachWrite({
		id: null,
		setup: async () => {},
		args: (sessions) => ['study', file, '--headless', '--sessions-dir', sessions],
		env: { ...ENV, ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key' },
		alsoAfter: ['batches.jsonl'],
		outcome: async (sessions) => {
			const record = await StudyRecord.peek(sessions, 'mills');
			const cells = Object.values(record?.cells ?? {}).sort((a, b) => a.session.localeCompare(b.session));
			return Promise.all(
				cells.map(async (cell) => ({
					...cell,
					run: await runOutcome(sessions, cell.session),
					scored: await annotationsOutcome(sessions, cell.session),
				})),
			);
		},
		asked: take,
	});
	t.diagnostic(killDiagnostic(report));
	assert.ok(report.batchesOut.length > 0, 'some kill left requests out in a recorded batch');
});
