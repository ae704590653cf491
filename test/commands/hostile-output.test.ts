import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { coverageCommand } from '../../source/commands/coverage.ts';
import { evidenceCommand } from '../../source/commands/evidence.ts';
import { exportCommand } from '../../source/commands/export.ts';
import { importCommand } from '../../source/commands/import.ts';
import { planCommand } from '../../source/commands/plan.ts';
import { precisionCommand } from '../../source/commands/precision.ts';
import { reportCommand } from '../../source/commands/report.ts';
import { resumeCommand } from '../../source/commands/resume.ts';
import { runCommand } from '../../source/commands/run.ts';
import { scoreCommand } from '../../source/commands/score.ts';
import { sessionsCommand } from '../../source/commands/sessions.ts';
import { showCommand } from '../../source/commands/show.ts';
import type { ConfigInput } from '../../source/config.ts';
import { Session } from '../../source/store/session.ts';
import { annotationReply, startFakeApi } from '../support/fake-api.ts';
import { capture } from '../support/assertions.ts';
import { tempDir } from '../support/temp.ts';
import { BEL, ESC, RLO } from '../support/ansi.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

/**
 * Every command's output with a hostile book (its title changes the terminal's title, its text
 * writes the clipboard and reverses text) and a hostile server (summaries, annotations and error
 * bodies carrying the same): nothing a terminal acts on may reach stdout or stderr, and JSON must
 * stay valid and keep the values.
 */

const TITLE_ATTACK = `${ESC}]0;pwned${ESC}\\`;
const BOOK_TITLE = `Evil ${TITLE_ATTACK}Book ${RLO}txt.exe`;
const SUMMARY = `The keeper ${ESC}]52;c;aGk=${BEL}wrote a log ${RLO}exe.txt in ${ESC}[31mred ink\x7f. He read it again \x9b2J at the very end.`;
const QUESTION = `Who is ${ESC}[2J${ESC}]0;owned${BEL}the keeper ${RLO}here?`;
const VALIDATOR = `eve${ESC}]0;x${BEL}${RLO}`;
// The characters a terminal would act on, or that would reorder what it shows.
// eslint-disable-next-line no-control-regex -- control characters are what the test looks for
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u;

/** Runs a command with captured stdout and stderr; both must be free of anything a terminal acts on. */
async function safely(
	name: string,
	command: (io: { stdout: Writable; stderr: Writable; program: string }) => Promise<number>,
	expectCode = 0,
) {
	const out = capture();
	const err = capture();
	const code = await command({ stdout: out.stream, stderr: err.stream, program: 'booook' });
	assert.equal(code, expectCode, `${name}: ${err.text()}`);
	for (const [stream, text] of [
		['stdout', out.text()],
		['stderr', err.text()],
	] as const) {
		// CSV's own line ends are CRLF; any other carriage return is a control character.
		const bad = UNSAFE.exec(text.replaceAll('\r\n', '\n'));
		assert.equal(
			bad,
			null,
			`${name} ${stream} holds ${JSON.stringify(bad?.[0])}: ${JSON.stringify(text.slice(Math.max(0, (bad?.index ?? 0) - 40), (bad?.index ?? 0) + 40))}`,
		);
	}
	return { out: out.text(), err: err.text() };
}

/** Escaped, not lost: the parsed JSON holds the hostile text exactly. */
function parsedHolds(json: string, text: string, name: string): void {
	assert.ok(
		JSON.stringify(JSON.parse(json)).includes(JSON.stringify(text).slice(1, -1)),
		`${name}: the JSON keeps ${JSON.stringify(text)}`,
	);
}

test('every command prints a hostile book and a hostile server safely, and its JSON stays valid and whole', async (t) => {
	const dir = tempDir('hostile', t);
	const book = join(dir, 'evil.txt');
	const body = readFileSync(FRANKENSTEIN, 'utf8').slice(2_000, 14_000);
	writeFileSync(
		book,
		`Title: ${BOOK_TITLE}\n\n${body.slice(0, 3_000)} ${ESC}]52;c;aGk=${BEL}${RLO} ${body.slice(3_000)}`,
	);
	const fake = await startFakeApi({
		respond: ({ prompt }) =>
			annotationReply(prompt, () => ({ questions: QUESTION, types: ['entity omission'] })) ?? SUMMARY,
	});
	t.after(() => fake.close());
	const sessionsDir = join(dir, 'sessions');
	const env = { OPENAI_API_KEY: 'sk-test-key' };
	const config: ConfigInput = {
		provider: 'openai',
		model: 'gpt-4o-mini',
		baseUrl: fake.openaiBaseUrl,
		chunkSize: 1024,
		maxSummary: 200,
		contextWindow: 4096,
		concurrency: 2,
	};

	const plan = await safely('plan', (io) => planCommand(book, { config, json: false, ...io }));
	assert.match(plan.out, /^Evil Book txt\.exe: /u);
	parsedHolds(
		(await safely('plan --json', (io) => planCommand(book, { config, json: true, ...io }))).out,
		BOOK_TITLE,
		'plan --json',
	);

	const run = await safely('run', (io) =>
		runCommand(book, { config, session: 'evil', sessionsDir, json: false, env, ...io }),
	);
	assert.match(run.out, /The keeper wrote a log exe\.txt in red ink\. He read it again +at the very end\./u);

	const events = await safely('run --json', (io) =>
		runCommand(book, { config, session: 'evil-json', sessionsDir, json: true, env, ...io }),
	);
	const deltas = events.out
		.trim()
		.split('\n')
		.map((line) => JSON.parse(line))
		.filter((e) => e.type === 'delta')
		.map((e) => e.text)
		.join('');
	assert.ok(deltas.includes(RLO) && deltas.includes(ESC), 'the events keep what the model sent, escaped');

	// A server whose error body writes the terminal's title and reverses text.
	fake.fail({ kind: 'status', status: 400, message: `bad ${TITLE_ATTACK}request ${RLO}here` });
	const failed = await safely(
		'a failed run',
		(io) =>
			runCommand(book, {
				config: { ...config, concurrency: 1 },
				session: 'evil-fail',
				sessionsDir,
				json: false,
				env,
				...io,
			}),
		1,
	);
	assert.match(
		failed.err,
		/run failed: .*openai: 400 Bad Request — bad request here\nFix the cause, then continue with: booook resume evil-fail --sessions-dir \S+\n/u,
	);
	const shownFailure = await safely('show of a failed run', (io) =>
		showCommand(sessionsDir, 'evil-fail', { json: false, ...io }),
	);
	assert.match(shownFailure.out, /status: failed \(.*bad request here\)/u);
	await safely('resume', (io) => resumeCommand(sessionsDir, 'evil-fail', { json: false, env, ...io }));
	await safely('resume of a done session', (io) =>
		resumeCommand(sessionsDir, 'evil-fail', { json: false, env, ...io }),
	);

	const list = await safely('sessions', (io) => sessionsCommand(sessionsDir, { json: false, ...io }));
	assert.match(list.out, /^evil +Evil Book txt\.exe/mu);
	parsedHolds(
		(await safely('sessions --json', (io) => sessionsCommand(sessionsDir, { json: true, ...io }))).out,
		BOOK_TITLE,
		'sessions --json',
	);

	await safely('show', (io) => showCommand(sessionsDir, 'evil', { json: false, ...io }));
	parsedHolds(
		(await safely('show --json', (io) => showCommand(sessionsDir, 'evil', { json: true, ...io }))).out,
		SUMMARY,
		'show --json',
	);

	await safely('score', (io) =>
		scoreCommand({ id: 'evil', json: false, sessionsDir, env, baseUrl: fake.openaiBaseUrl, ...io }),
	);
	await safely('score --json', (io) => scoreCommand({ id: 'evil', json: true, sessionsDir, env, ...io }));

	// A validator whose name and note are hostile judges one of the model's annotations.
	const session = await Session.open(sessionsDir, 'evil');
	const annotation = session.data.annotations.find((a) => a.confusing)!;
	await session.append('judgments', {
		annotation: annotation.id,
		validator: VALIDATOR,
		verdict: 'agree',
		reasons: [],
		note: `noted ${TITLE_ATTACK}${RLO}`,
		at: new Date().toISOString(),
	});
	await session.close();

	const precision = await safely('precision', (io) =>
		precisionCommand({ id: 'evil', sessionsDir, json: false, seed: 1, resamples: 50, ...io }),
	);
	assert.match(precision.out, /verdicts of eve in session evil/u);
	await safely('precision --json', (io) =>
		precisionCommand({ id: 'evil', sessionsDir, json: true, seed: 1, resamples: 50, ...io }),
	);
	await safely('report', (io) =>
		reportCommand(sessionsDir, 'evil', { json: false, seed: 1, resamples: 50, ...io }),
	);
	parsedHolds(
		(
			await safely('report --json', (io) =>
				reportCommand(sessionsDir, 'evil', { json: true, seed: 1, resamples: 50, ...io }),
			)
		).out,
		VALIDATOR,
		'report --json',
	);

	// Evidence shows the book's own passages, the hostile one among them.
	const evidence = await safely('evidence', (io) =>
		evidenceCommand(sessionsDir, 'evil', { top: 50, json: false, ...io }),
	);
	assert.match(evidence.out, /^1\. The keeper wrote a log exe\.txt in red ink\./mu);
	parsedHolds(
		(
			await safely('evidence --json', (io) =>
				evidenceCommand(sessionsDir, 'evil', { top: 50, json: true, ...io }),
			)
		).out,
		SUMMARY.split('. He')[0]!,
		'evidence --json',
	);
	await safely('coverage', (io) => coverageCommand(sessionsDir, 'evil', { json: false, ...io }));

	parsedHolds(
		(
			await safely('export', (io) =>
				exportCommand(sessionsDir, 'evil', { format: 'booookscore', intermediate: true, ...io }),
			)
		).out,
		SUMMARY,
		'export',
	);
	parsedHolds(
		(
			await safely('export validation', (io) =>
				exportCommand(sessionsDir, 'evil', { format: 'validation', intermediate: false, ...io }),
			)
		).out,
		QUESTION,
		'export validation',
	);
	const csv = await safely('export csv', (io) =>
		exportCommand(sessionsDir, 'evil', { format: 'csv', intermediate: false, ...io }),
	);
	assert.match(csv.out, /^book,annotation,.*\r\n.*Who is the keeper here\?.*,eve,agree,/u);
	const file = join(dir, 'verdicts.csv');
	await safely('export csv --out', (io) =>
		exportCommand(sessionsDir, 'evil', { format: 'csv', intermediate: false, out: file, ...io }),
	);
	assert.equal(readFileSync(file, 'utf8'), csv.out, 'the file holds what stdout shows');

	// Released files with hostile book names and summaries, imported and scored.
	const summaries = join(dir, 'summaries.json');
	const released = `evil${TITLE_ATTACK}${RLO}.txt`;
	writeFileSync(
		summaries,
		JSON.stringify({ [released]: SUMMARY, 'plain.txt': 'A plain summary. It has two sentences.' }),
	);
	await safely('import', (io) =>
		importCommand('booookscore', { summaries, session: 'coll', sessionsDir, json: false, ...io }),
	);
	await safely('import --json', (io) =>
		importCommand('booookscore', { summaries, session: 'coll-json', sessionsDir, json: true, ...io }),
	);
	await safely('show of a collection', (io) => showCommand(sessionsDir, 'coll', { json: false, ...io }));
	parsedHolds(
		(
			await safely('show --json of a collection', (io) =>
				showCommand(sessionsDir, 'coll', { json: true, ...io }),
			)
		).out,
		released,
		'show --json of a collection',
	);
	await safely('score --summaries', (io) =>
		scoreCommand({ summaries, json: false, sessionsDir, env, baseUrl: fake.openaiBaseUrl, ...io }),
	);
});
