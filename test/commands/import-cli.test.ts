import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importCommand, type ImportOptions } from '../../source/commands/import.ts';
import { precisionCommand } from '../../source/commands/precision.ts';
import { UserError } from '../../source/errors.ts';
import { booook, printed } from '../support/cli.ts';
import { tempDir as newTempDir } from '../support/temp.ts';
import type * as Released from '../support/released.ts';
import type { CollectionSessionData } from '../../source/store/schema.ts';
import { DATA_DIR as DATA } from '../support/repo-data.ts';

const FILES = {
	summaries: join(DATA, 'summaries/gpt4-2048-hier-cleaned.json'),
	annotations: join(DATA, 'annotations/gpt4-2048-hier.json'),
	intermediate: join(DATA, 'intermediate/claude-88000-hier.json'),
	incremental: join(DATA, 'intermediate/claude-88000-inc.json'),
	human: join(DATA, 'human_annotations/summary-gpt4-4096-hier.json'),
	validation: join(DATA, 'human_annotations/annotations-gpt4-4096-inc.json'),
};
const raw = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const tempDir = () => newTempDir('import');
const stateOf = (dir: string, id: string) => raw<CollectionSessionData>(join(dir, id, 'session.json'));

// Errors are raised before anything is printed, so they are checked in-process (a spawn costs a
// second or two); the CLI's exit code and one-line message are checked once per command below.
const importing = (opts: Partial<ImportOptions> & { sessionsDir: string }, format = 'booookscore') =>
	importCommand(format, { json: false, program: 'booook', ...opts });
const precision = (opts: { id?: string; validation?: string; validator?: string; sessionsDir?: string }) =>
	precisionCommand({ json: true, seed: 1, resamples: 10, ...opts });
/** Resolves to the UserError a promise is rejected with; it must be bad input (exit 2) on one line. */
async function badInput(promise: Promise<unknown>): Promise<string> {
	const error = await promise.then(
		() => assert.fail('expected an error'),
		(e: unknown) => e,
	);
	assert.ok(error instanceof UserError, String(error));
	assert.equal(error.exitCode, 2);
	assert.equal(error.message.includes('\n'), false, error.message);
	return error.message;
}

test('importing every released file at once: one collection, counts as in the files, browsable with show and sessions', async () => {
	const dir = tempDir();
	const r = await booook([
		'import',
		'booookscore',
		'--summaries',
		FILES.summaries,
		'--annotations',
		FILES.annotations,
		'--intermediate',
		FILES.intermediate,
		'--human',
		FILES.human,
		'--validation',
		FILES.validation,
		'--session',
		'all',
		'--sessions-dir',
		dir,
	]);
	assert.equal(r.code, 0, r.stderr);
	const lines = r.stdout.trim().split('\n');
	assert.deepEqual(
		lines.map((l) => l.split(' ')[0]),
		['--summaries', '--annotations', '--intermediate', '--human', '--validation', 'imported'],
	);
	// The hint names commands that make no model call (score would annotate every sentence lacking a model verdict).
	const there = `all --sessions-dir ${dir}`;
	assert.equal(
		lines.at(-1),
		`imported into session all; its results (no model call): ${printed(`report ${there}`)}; judge its annotations: ${printed(`validate ${there}`)}; precision: ${printed(`precision ${there}`)}`,
	);

	// Counted from the raw files, not by the importer.
	const summaries = raw<Released.Summaries>(FILES.summaries);
	const hier = raw<Released.Hierarchical>(FILES.intermediate);
	const human = raw<Released.Human>(FILES.human);
	const study = raw<Released.Study>(FILES.validation);
	const units = Object.values(human).reduce((n, b) => n + b.singles.length + b.relations.length, 0);
	const judged = Object.values(study).flatMap((b) => b.annotations);
	const count = (n: number, what: string) => new RegExp(`\\b${n.toLocaleString('en-US')} ${what}`, 'u');
	assert.match(lines[0]!, count(Object.keys(summaries).length, 'summaries'));
	assert.match(lines[2]!, count(Object.keys(hier).length, 'final summaries'));
	assert.match(lines[3]!, count(Object.keys(human).length, 'summaries'));
	assert.match(lines[3]!, count(units, 'human annotations'));
	assert.match(lines[4]!, count(Object.keys(study).length, 'summaries'));
	assert.match(lines[4]!, count(judged.length, 'verdicts'));

	const state = stateOf(dir, 'all');
	assert.equal(state.kind, 'collection');
	assert.deepEqual(state.sources, [
		FILES.summaries,
		FILES.annotations,
		FILES.intermediate,
		FILES.human,
		FILES.validation,
	]);
	assert.equal(
		state.summaries.length,
		Object.keys(summaries).length +
			Object.keys(hier).length +
			Object.keys(human).length +
			Object.keys(study).length,
	);
	assert.deepEqual(
		state.runs.map((run) => [run.book, (run as { levels: string[][] }).levels.length]),
		Object.entries(hier).map(([book, v]) => [book, Object.keys(v.summaries_dict).length]),
	);
	assert.equal(state.judgments.length, judged.length);
	const bySource = (source: string) => state.summaries.filter((s) => s.source === source).map((s) => s.id);
	const annotationsOf = (ids: string[]) => state.annotations.filter((a) => ids.includes(a.summary));
	assert.equal(annotationsOf(bySource('summary-gpt4-4096-hier.json')).length, units);
	assert.equal(annotationsOf(bySource('annotations-gpt4-4096-inc.json')).length, judged.length);
	assert.equal(annotationsOf(bySource('claude-88000-hier.json')).length, 0);

	const show = await booook(['show', 'all', '--sessions-dir', dir, '--json']);
	assert.equal(show.code, 0, show.stderr);
	const shown = JSON.parse(show.stdout);
	assert.equal(shown.kind, 'collection');
	assert.equal(shown.summaries, state.summaries.length);
	assert.equal(shown.judgments, judged.length);
	const text = await booook(['show', 'all', '--sessions-dir', dir]);
	assert.equal(text.code, 0, text.stderr);
	assert.match(text.stdout, /collection session all/u);

	const listed = await booook(['sessions', '--sessions-dir', dir, '--json']);
	assert.equal(listed.code, 0, listed.stderr);
	const list = JSON.parse(listed.stdout);
	assert.deepEqual(list.problems, []);
	assert.deepEqual(
		list.sessions.map((s: { id: string; kind: string; status: string }) => [s.id, s.kind, s.status]),
		[['all', 'collection', 'imported']],
	);
	assert.equal((await booook(['sessions', '--sessions-dir', dir])).code, 0);
});

test('precision ID after importing the study equals precision --validation F, and reproduces Appendix G', async () => {
	const dir = tempDir();
	const imported = await booook([
		'import',
		'booookscore',
		'--validation',
		FILES.validation,
		'--sessions-dir',
		dir,
		'--json',
	]);
	assert.equal(imported.code, 0, imported.stderr);
	const summary = JSON.parse(imported.stdout);
	assert.equal(summary.title, 'gpt4-4096-inc (BooookScore release)');
	assert.deepEqual(
		summary.next,
		['report', 'validate', 'precision'].map((command) =>
			printed(`${command} ${summary.session} --sessions-dir ${dir}`),
		),
	);
	assert.deepEqual(readdirSync(dir), [summary.session]);

	const fromSession = await booook([
		'precision',
		summary.session,
		'--sessions-dir',
		dir,
		'--json',
		'--resamples',
		'500',
	]);
	assert.equal(fromSession.code, 0, fromSession.stderr);
	const fromFile = await booook([
		'precision',
		'--validation',
		FILES.validation,
		'--json',
		'--resamples',
		'500',
	]);
	assert.equal(fromSession.stdout, fromFile.stdout);
	const p = JSON.parse(fromSession.stdout);
	assert.ok(Math.abs(p.human.precision - 79.7) <= 0.1, String(p.human.precision));
	assert.ok(Math.abs(p.model.precision - 78.2) <= 0.1, String(p.model.precision));
	const judged = Object.values(raw<Released.Study>(FILES.validation)).flatMap((b) => b.annotations);
	assert.equal(p.human.n, judged.filter((a) => a.source === 'human').length);
	assert.equal(p.model.n, judged.filter((a) => a.source === 'model').length);
	const text = await booook(['precision', summary.session, '--sessions-dir', dir]);
	assert.match(text.stdout, /^verdicts of authors' study \(released\) in session /u);

	// A second validator: the choice is the user's, and an unknown one is named as such.
	const state = stateOf(dir, summary.session);
	state.judgments.push({ ...state.judgments[0]!, validator: 'ann', verdict: 'disagree' });
	writeFileSync(join(dir, summary.session, 'session.json'), JSON.stringify(state));
	assert.match(
		await badInput(precision({ id: summary.session, sessionsDir: dir })),
		/2 validators \("authors' study \(released\)", "ann"\); choose one with --validator/u,
	);
	const ann = await booook([
		'precision',
		summary.session,
		'--sessions-dir',
		dir,
		'--validator',
		'ann',
		'--json',
	]);
	assert.equal(ann.code, 0, ann.stderr);
	const one = JSON.parse(ann.stdout);
	assert.deepEqual(
		Object.values<{ n: number; disagree: number }>(one).map((s) => [s.n, s.disagree]),
		[[1, 1]],
	);
	assert.match(
		await badInput(precision({ id: summary.session, sessionsDir: dir, validator: 'bob' })),
		/no verdicts from "bob"/u,
	);
});

test('an incremental run imports; precision of a session without verdicts, or of nothing, is a clear error', async () => {
	const dir = tempDir();
	const imported = await booook([
		'import',
		'booookscore',
		'--intermediate',
		FILES.incremental,
		'--sessions-dir',
		dir,
		'--json',
	]);
	assert.equal(imported.code, 0, imported.stderr);
	const { session, files } = JSON.parse(imported.stdout);
	assert.equal(files[0].method, 'inc');
	assert.equal(files[0].summaries, Object.keys(raw<Released.Incremental>(FILES.incremental)).length);
	assert.match(await badInput(precision({ id: session, sessionsDir: dir })), /has no verdicts yet/u);
	assert.match(await badInput(precision({ sessionsDir: dir })), /nothing to judge/u);
	assert.match(
		await badInput(precision({ id: session, validation: FILES.validation, sessionsDir: dir })),
		/not both/u,
	);
	assert.match(
		await badInput(precision({ id: 'no-such-session', sessionsDir: dir })),
		/no session "no-such-session"/u,
	);
	const cli = await booook(['precision', 'no-such-session', '--sessions-dir', dir]);
	assert.equal(cli.code, 2);
	assert.match(cli.stderr, /^booook: no session "no-such-session"[^\n]*\n$/u);
});

/** Writes `value` to a temp file named `name` and returns its path. */
function badFile(dir: string, name: string, value: unknown): string {
	const file = join(dir, name);
	writeFileSync(file, JSON.stringify(value));
	return file;
}

test('a malformed file is a one-line error naming the file and the first bad entry, and no session is made', async () => {
	const files = tempDir();
	const summaries = raw<Released.Summaries>(FILES.summaries);
	const annotations = raw<Released.Annotations>(FILES.annotations);
	const human = raw<Released.Human>(FILES.human);
	const study = raw<Released.Study>(FILES.validation);
	const hier = raw<Released.Hierarchical>(FILES.intermediate);

	const badSummaries: Record<string, unknown> = { ...summaries };
	const summaryBook = Object.keys(summaries)[3]!;
	badSummaries[summaryBook] = 42;

	const annotatedBook = Object.keys(annotations).find((b) => Object.keys(annotations[b] ?? {}).length > 0)!;
	const badAnnotations = structuredClone(annotations);
	badAnnotations[annotatedBook]![Object.keys(annotations[annotatedBook]!)[0]!]!.types = ['spelling'];

	const humanBook = Object.keys(human)[1]!;
	const badHuman = structuredClone(human);
	badHuman[humanBook]!.singles[0]!.labels = ['plot hole'];

	const studyBook = Object.keys(study)[2]!;
	const badStudy = structuredClone(study);
	badStudy[studyBook]!.annotations[0]!.agreement = 'Maybe';

	const hierBook = Object.keys(hier)[4]!;
	const badHier = structuredClone(hier);
	delete (badHier[hierBook] as Partial<Released.Hierarchical[string]>).final_summary;

	const cases: [string[], string, RegExp][] = [
		[['--summaries', badFile(files, 'bad-summaries.json', badSummaries)], summaryBook, /string/u],
		[
			[
				'--summaries',
				FILES.summaries,
				'--annotations',
				badFile(files, 'bad-annotations.json', badAnnotations),
			],
			annotatedBook,
			/spelling/u,
		],
		[['--human', badFile(files, 'bad-human.json', badHuman)], humanBook, /plot hole/u],
		[
			['--summaries', FILES.summaries, '--validation', badFile(files, 'bad-study.json', badStudy)],
			studyBook,
			/agreement/u,
		],
		[['--intermediate', badFile(files, 'bad-hier.json', badHier)], hierBook, /final_summary/u],
	];
	const sessions = join(tempDir(), 'sessions');
	for (const [args, book, detail] of cases) {
		const opts: Record<string, string> = {};
		for (let i = 0; i < args.length; i += 2) opts[args[i]!.slice(2)] = args[i + 1]!;
		const file = args.at(-1)!;
		const message = await badInput(importing({ ...opts, session: 'x', sessionsDir: sessions }));
		assert.ok(message.includes(file) && message.includes(book), message);
		assert.match(message, detail);
	}
	// Once through the binary: exit 2, one line on stderr, nothing on stdout.
	const [args, book] = cases[1]!;
	const r = await booook(['import', 'booookscore', ...args, '--session', 'x', '--sessions-dir', sessions]);
	assert.equal(r.code, 2, r.stderr);
	assert.match(r.stderr, /^booook: [^\n]*\n$/u);
	assert.ok(r.stderr.includes('bad-annotations.json') && r.stderr.includes(book), r.stderr);
	assert.equal(r.stdout, '');

	const notJson = join(files, 'broken.json');
	writeFileSync(notJson, '{ "a.epub": ');
	assert.match(
		await badInput(importing({ human: notJson, sessionsDir: sessions })),
		/--human .*broken\.json: not valid JSON/u,
	);
	assert.match(
		await badInput(importing({ summaries: join(files, 'absent.json'), sessionsDir: sessions })),
		/absent\.json: no such file/u,
	);
	assert.equal(existsSync(sessions), false, 'no session directory is made');
});

test('usage errors: nothing to import, annotations without summaries, an unknown format', async () => {
	const sessions = join(tempDir(), 'sessions');
	assert.match(await badInput(importing({ sessionsDir: sessions })), /nothing to import/u);
	assert.match(
		await badInput(importing({ annotations: FILES.annotations, sessionsDir: sessions })),
		/--annotations .*--summaries/u,
	);
	assert.match(
		await badInput(importing({ summaries: FILES.summaries, sessionsDir: sessions }, 'other')),
		/booookscore/u,
	);
	assert.match(
		await badInput(importing({ summaries: FILES.summaries, session: '../../up', sessionsDir: sessions })),
		/not a valid session id/u,
	);
	const unknown = await booook(['import', 'other', '--sessions-dir', sessions]);
	assert.equal(unknown.code, 2);
	assert.match(
		unknown.stderr,
		/^booook: cannot import format "other"; use booookscore .* or summary .*import summary --book BOOK --summary FILE\)\n$/u,
	);
	const cli = await booook(['import', 'booookscore', '--sessions-dir', sessions]);
	assert.equal(cli.code, 2);
	assert.match(cli.stderr, /^booook: nothing to import[^\n]*\n$/u);
	assert.equal(existsSync(sessions), false);
});

test('--session with an id that exists is refused and the existing session is left as it was', async () => {
	const dir = tempDir();
	const first = await booook([
		'import',
		'booookscore',
		'--summaries',
		FILES.summaries,
		'--annotations',
		FILES.annotations,
		'--session',
		'taken',
		'--sessions-dir',
		dir,
	]);
	assert.equal(first.code, 0, first.stderr);
	const before = readFileSync(join(dir, 'taken', 'session.json'));
	const taken = await badInput(importing({ human: FILES.human, session: 'taken', sessionsDir: dir }));
	// A collection is never resumed: the way on is to score it.
	assert.ok(
		taken.endsWith(`; choose another --session or score it with: booook score taken --sessions-dir ${dir}`),
		taken,
	);
	assert.deepEqual(readFileSync(join(dir, 'taken', 'session.json')), before);
	assert.deepEqual(readdirSync(dir), ['taken']);
	assert.deepEqual(readdirSync(join(dir, 'taken')).sort(), ['session.json']);
	const state = stateOf(dir, 'taken');
	assert.equal(state.summaries.length, Object.keys(raw<Released.Summaries>(FILES.summaries)).length);
	assert.equal(state.annotations.filter((a) => a.source === 'human').length, 0);
});
