import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { booook, printed } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import type { BookSessionData } from '../../source/store/schema.ts';
import { textVersion } from '../../source/summarize/version.ts';
import { readBook } from '../../source/book/read.ts';
import { DEFAULTS } from '../../source/config.ts';
import { PassageIndex } from '../../source/evidence/rank.ts';
import { chapterAt, chaptersOf } from '../../source/text/chapters.ts';
import { chunkText } from '../../source/text/chunk.ts';
import { BOOKS_DIR, readEvidenceSet } from '../support/evidence-set.ts';
import { annotatingReply, annotationQuestion, startFakeApi } from '../support/fake-api.ts';
import { faithfulnessReply } from '../support/faithfulness-reply.ts';
import { splitSentences } from '../../source/text/sentences.ts';
import { FRANKENSTEIN as BOOK } from '../support/repo-data.ts';

// Two sentences a reader might write: the second is copied from the book, the first is not.
const SUMMARY =
	'A young scientist builds a living creature from dead matter and flees from it in horror.\r\n' +
	'It was on a dreary night of November that I beheld the accomplishment of my toils.\n\n';
/** `booook import summary` of Frankenstein and `summary` into session `id` of `sessions`. */
const importing = (summary: string, id: string, sessions: string) =>
	booook([
		'import',
		'summary',
		'--book',
		BOOK,
		'--summary',
		summary,
		'--session',
		id,
		'--sessions-dir',
		sessions,
	]);

test('import summary: a session whose final summary is the file, which evidence, report and show read and resume leaves alone', async (t) => {
	const dir = tempDir('import-summary', t);
	const file = join(dir, 'summary.txt');
	writeFileSync(file, SUMMARY);
	const at = ['--sessions-dir', dir];
	const r = await importing(file, 'mine', dir);
	assert.equal(r.code, 0, r.stderr);
	assert.match(r.stdout, /into session mine/u);
	assert.ok(r.stdout.includes(printed(`evidence mine --sessions-dir ${dir}`)), r.stdout);

	const data = JSON.parse(readFileSync(join(dir, 'mine', 'session.json'), 'utf8')) as BookSessionData;
	const { run } = data;
	assert.equal(run.status, 'done');
	assert.equal(run.root, 'n0');
	assert.equal(run.imported?.file, file);
	assert.equal(run.config.model, 'imported');
	const [node] = run.nodes;
	assert.equal(run.nodes.length, 1);
	assert.equal(node!.versions[0]!.origin, 'imported');
	assert.equal(node!.versions[0]!.text, SUMMARY.replaceAll('\r\n', '\n').trimEnd());
	assert.equal(node!.inputs.length, run.chunks.length);

	const evidence = await booook(['evidence', 'mine', '--json', ...at]);
	assert.equal(evidence.code, 0, evidence.stderr);
	const shown = JSON.parse(evidence.stdout) as {
		final: boolean;
		sentences: number;
		evidence: { chunks: number[][]; passages: { verbatim: boolean }[]; support: number; weak: boolean }[];
	};
	assert.equal(shown.final, true);
	assert.equal(shown.sentences, 2);
	assert.equal(shown.evidence[1]!.passages[0]!.verbatim, true, 'the copied sentence is found word for word');
	assert.deepEqual([shown.evidence[1]!.support, shown.evidence[1]!.weak], [1, false], 'and fully supported');
	// No tree narrows it: every chunk, said once as a run rather than listed.
	assert.deepEqual(shown.evidence[0]!.chunks, [[0, run.chunks.length - 1]]);

	// Coverage names the chapters the sentences cite: the copied sentence is in Chapter 5.
	const coverage = await booook(['coverage', 'mine', '--json', ...at]);
	assert.equal(coverage.code, 0, coverage.stderr);
	const placed = JSON.parse(coverage.stdout) as {
		chapters: { title: string; sentences: number }[];
		weakly_supported: number;
	};
	const { chapters } = placed;
	assert.equal(
		placed.weakly_supported,
		shown.evidence.filter((e) => e.weak).length,
		'as evidence flags them',
	);
	assert.ok(chapters.length > 20, `${chapters.length} chapters`);
	assert.equal(chapters.find((c) => c.title === 'Chapter 5')?.sentences, 1);
	assert.equal(
		chapters.reduce((n, c) => n + c.sentences, 0),
		2,
	);
	const report = await booook(['report', 'mine', ...at]);
	assert.equal(report.code, 0, report.stderr);
	// Not scored yet: the report names this session's own commands, and has no empty table.
	assert.match(report.stdout, / {2}no annotations yet: .* score mine --sessions-dir \S+ annotates/u);
	assert.match(report.stdout, /precision: no verdicts yet \(.* validate mine --sessions-dir \S+\)/u);
	assert.doesNotMatch(report.stdout, /^per book/mu);
	assert.match(report.stdout, /^coverage of the final summary\n {2}start /mu);
	assert.match(report.stdout, /^ {2}chapters: 2 of \d+ cited \(sentences: .*"Chapter 5" 1/mu);
	assert.match(
		report.stdout,
		new RegExp(`^ {2}weakly supported: ${placed.weakly_supported} of 2 sentences`, 'mu'),
	);
	const show = await booook(['show', 'mine', ...at]);
	assert.equal(show.code, 0, show.stderr);
	assert.match(show.stdout, /young scientist/u);

	const list = await booook(['sessions', '--json', ...at]);
	assert.equal(list.code, 0, list.stderr);
	assert.deepEqual(
		(
			JSON.parse(list.stdout) as {
				sessions: { id: string; status: string; model: string | null; progress: unknown }[];
			}
		).sessions.map((s) => [s.id, s.status, s.model, s.progress]),
		[['mine', 'imported', null, { done: 1, total: 1 }]],
	);

	const resume = await booook(['resume', 'mine', ...at]);
	assert.equal(resume.code, 0, resume.stderr);
	assert.match(resume.stderr, /imported from .*summary\.txt: there is nothing to run/u);
	assert.equal(JSON.parse(readFileSync(join(dir, 'mine', 'session.json'), 'utf8')).run.nodes.length, 1);
});

test('import summary: a missing, empty or binary summary, a missing book or a taken id is one line, exit 2, and leaves nothing', async (t) => {
	const dir = tempDir('import-summary-bad', t);
	const good = join(dir, 'good.txt');
	writeFileSync(good, SUMMARY);
	const empty = join(dir, 'empty.txt');
	writeFileSync(empty, ' \n\n');
	const binary = join(dir, 'binary.txt');
	writeFileSync(binary, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0xff]));
	const sessions = join(dir, 'sessions');
	const at = ['--sessions-dir', sessions];
	const made = await importing(good, 'taken', sessions);
	assert.equal(made.code, 0, made.stderr);
	const before = readFileSync(join(sessions, 'taken', 'session.json'), 'utf8');

	const cases: [string[], RegExp][] = [
		[['--book', BOOK, '--summary', join(dir, 'nope.txt')], /--summary .*nope\.txt: no such file/u],
		[['--book', BOOK, '--summary', empty], /--summary .*empty\.txt: the file is empty/u],
		[['--book', BOOK, '--summary', binary], /--summary .*binary\.txt: not UTF-8 text/u],
		[['--book', join(dir, 'nope.txt'), '--summary', good], /nope\.txt: no such file/u],
		[['--summary', good], /needs both files/u],
		[['--book', BOOK, '--summary', good, '--human', good], /--human is for .*import booookscore/u],
		// An imported summary is read, never resumed: resume has nothing to run for it.
		[
			['--book', BOOK, '--summary', good, '--session', 'taken'],
			/session "taken" already exists .*; choose another --session or read it with: .* evidence taken --sessions-dir \S+$/mu,
		],
	];
	for (const [args, message] of cases) {
		const r = await booook(['import', 'summary', ...args, ...at]);
		assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
		assert.match(r.stderr, message);
		assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
		assert.deepEqual(readdirSync(sessions), ['taken'], 'nothing left behind');
	}
	assert.equal(readFileSync(join(sessions, 'taken', 'session.json'), 'utf8'), before);
	const mixed = await booook(['import', 'booookscore', '--book', BOOK, ...at]);
	assert.equal(mixed.code, 2);
	assert.match(mixed.stderr, /--book and --summary are for .*import summary/u);
});

test('a summary whose path holds a newline or a control character is shown with its path on one line', async (t) => {
	const dir = tempDir('import-summary-path', t);
	const file = join(dir, 'sum\nBooookScore: 99.9\x1b[2J.txt');
	writeFileSync(file, SUMMARY);
	assert.equal((await importing(file, 'odd', dir)).code, 0);
	const show = await booook(['show', 'odd', '--sessions-dir', dir]);
	assert.equal(show.code, 0, show.stderr);
	assert.doesNotMatch(show.stdout, /^BooookScore: 99/mu, 'the name cannot pass for a line of its own');
	assert.ok(
		show.stdout.includes('read from ' + join(dir, 'sum\\nBooookScore: 99.9.txt') + ' (not made here'),
		show.stdout,
	);
	const resume = await booook(['resume', 'odd', '--sessions-dir', dir]);
	assert.equal(resume.code, 0, resume.stderr);
	assert.equal(resume.stderr.trim().split('\n').length, 1, resume.stderr);
	assert.match(resume.stderr, /sum\\nBooookScore: 99\.9\.txt: there is nothing to run/u);
});

/** A summary of Pride and Prejudice, in our words. */
const PRIDE_SUMMARY = [
	'Mrs. Bennet is eager to see her five daughters married, and the arrival of the wealthy Mr. Bingley at Netherfield raises her hopes.',
	'At a ball in Meryton, Bingley is taken with Jane, while his proud friend Mr. Darcy snubs Elizabeth.',
	"Elizabeth's dislike of Darcy grows when the charming officer Wickham tells her that Darcy cheated him of a living.",
	'Mr. Collins, the cousin who will inherit Longbourn, proposes to Elizabeth and is refused, then marries her friend Charlotte Lucas.',
	'Darcy proposes to Elizabeth at Hunsford, and she rejects him angrily.',
	"His letter explains his part in separating Bingley from Jane and reveals Wickham's true character.",
	"Lydia elopes with Wickham, and Darcy quietly arranges their marriage to save the family's name.",
	"Bingley returns to marry Jane, and Elizabeth, her prejudice overcome, accepts Darcy's second proposal.",
].join('\n');

/** A summary of Frankenstein paraphrased, not copied: no sentence of it is the book's. */
const FRANKENSTEIN_SUMMARY = [
	'Captain Walton, sailing toward the North Pole, writes to his sister about a weary traveller his crew rescued from the ice.',
	'The stranger, Victor Frankenstein, tells how his boyhood in Geneva and his reading of old alchemists led him to study natural science at Ingolstadt.',
	'Working in secret, Victor assembles a body and brings it to life, but he is horrified by the creature and runs from his laboratory.',
	"Victor's young brother William is murdered, and the family servant Justine is wrongly executed for the crime.",
	'On a glacier near Mont Blanc the creature meets Victor and recounts how he learned language by watching a family of cottagers.',
	'Rejected by everyone he meets, the creature demands that Victor build him a female companion.',
	'Victor begins the work on a remote Scottish island but destroys it, and in revenge the creature strangles his friend Henry Clerval.',
	"On the night of Victor's wedding, the creature kills Elizabeth.",
	"Victor pursues the creature into the Arctic and dies aboard Walton's ship, and the creature mourns his maker before vanishing over the ice.",
].join('\n');

test("import summary warns in one line when almost none of the summary's sentences find support in the book: another book's summary", async (t) => {
	const dir = tempDir('import-summary-match', t);
	const imported = async (summary: string, book: string, id: string) => {
		const file = join(dir, `${id}.txt`);
		writeFileSync(file, summary);
		const r = await booook([
			'import',
			'summary',
			'--book',
			join(BOOKS_DIR, book),
			'--summary',
			file,
			'--session',
			id,
			'--sessions-dir',
			dir,
			'--json',
		]);
		assert.equal(r.code, 0, r.stderr);
		return { stderr: r.stderr, support: JSON.parse(r.stdout).support };
	};
	const wrong = await imported(PRIDE_SUMMARY, 'frankenstein.txt', 'wrong');
	assert.deepEqual(wrong.support, { sentences: 8, supported: 0, another_book: true });
	assert.match(
		wrong.stderr,
		/^warning: only 0 of 8 sentences of the summary find support in "Frankenstein[^"]*" \(.*\): if it summarizes another book, import it again with that --book\n$/u,
	);
	// The session is made all the same: the warning is a question, not a refusal.
	assert.ok(readdirSync(dir).includes('wrong'));

	const paraphrase = await imported(FRANKENSTEIN_SUMMARY, 'frankenstein.txt', 'right');
	assert.equal(paraphrase.stderr, '');
	assert.equal(paraphrase.support.another_book, false);
	assert.ok(
		paraphrase.support.supported >= paraphrase.support.sentences / 2,
		JSON.stringify(paraphrase.support),
	);
	const { text: book } = await readBook(BOOK);
	for (const sentence of splitSentences(FRANKENSTEIN_SUMMARY))
		assert.ok(!book.includes(sentence), `copied: ${sentence}`);
	const own = await imported(PRIDE_SUMMARY, 'pride-and-prejudice.txt', 'own');
	assert.equal(own.stderr, '');
});

test('evidence says where a sentence was written by a person or imported, since the tree narrows only what a model copied', async (t) => {
	const dir = tempDir('import-summary-edited', t);
	const file = join(dir, 'summary.txt');
	writeFileSync(file, SUMMARY);
	assert.equal((await importing(file, 'mine', dir)).code, 0);
	const imported = await booook(['evidence', 'mine', '--top', '1', '--sessions-dir', dir]);
	assert.match(imported.stdout, /^ {3}can come from chunks 1-\d+ \(written at node n0, imported text\)$/mu);

	// The same node as a person's edit.
	const path = join(dir, 'mine', 'session.json');
	const data = JSON.parse(readFileSync(path, 'utf8')) as BookSessionData;
	data.run.nodes[0]!.versions[0] = textVersion(data.run.nodes[0]!.versions[0]!.text, 'edit', new Date());
	delete data.run.imported;
	writeFileSync(path, JSON.stringify(data));
	const edited = await booook(['evidence', 'mine', '--top', '1', '--sessions-dir', dir]);
	assert.equal(edited.code, 0, edited.stderr);
	assert.match(edited.stdout, /\(written at node n0, edited by hand\)$/mu);
});

test('the labelled set through import summary: evidence --json ranks each sentence as the bench does and names chapters as its labels do', async (t) => {
	const [set] = readEvidenceSet().filter((b) => b.file === 'frankenstein.json');
	assert.ok(set, 'the labelled set has Frankenstein');
	const dir = tempDir('import-summary-set', t);
	const file = join(dir, 'summary.txt');
	writeFileSync(file, set.sentences.map((s) => s.text).join('\n\n'));
	assert.equal((await importing(file, 'set', dir)).code, 0);
	const r = await booook(['evidence', 'set', '--json', '--top', '3', '--sessions-dir', dir]);
	assert.equal(r.code, 0, r.stderr);
	const shown = JSON.parse(r.stdout) as {
		evidence: { text: string; passages: { start: number; chapter: { title: string } | null }[] }[];
	};
	assert.deepEqual(
		shown.evidence.map((e) => e.text),
		set.sentences.map((s) => s.text),
		'one sentence each, as written',
	);
	const { text: book } = await readBook(BOOK);
	const index = new PassageIndex(book, chunkText(book, DEFAULTS.chunkSize, DEFAULTS.encoding));
	const chapters = chaptersOf(book);
	for (const e of shown.evidence) {
		assert.deepEqual(
			e.passages.map((p) => p.start),
			index.rank(e.text, 3).map((h) => h.start),
			e.text,
		);
		for (const p of e.passages) assert.equal(p.chapter?.title, chapterAt(chapters, p.start)?.title);
	}
});

test("a sentence's support is the same whatever --top shows, and coverage counts the weak ones evidence flags", async (t) => {
	// Paraphrases, whose support varies from passage to passage: it was of the passages shown, so
	// --top 1 (and coverage, which reads one) flagged sentences that --top 3 did not.
	const [set] = readEvidenceSet().filter((b) => b.file === 'frankenstein.json');
	assert.ok(set, 'the labelled set has Frankenstein');
	const dir = tempDir('import-summary-support', t);
	const file = join(dir, 'summary.txt');
	writeFileSync(file, set.sentences.map((s) => s.text).join('\n\n'));
	assert.equal((await importing(file, 'set', dir)).code, 0);
	const supports = async (top: string) => {
		const r = await booook(['evidence', 'set', '--json', '--top', top, '--sessions-dir', dir]);
		assert.equal(r.code, 0, r.stderr);
		const shown = JSON.parse(r.stdout) as { evidence: { support: number; weak: boolean }[] };
		return shown.evidence.map((e) => ({ support: e.support, weak: e.weak }));
	};
	const three = await supports('3');
	assert.deepEqual(await supports('1'), three, '--top 1');
	assert.deepEqual(await supports('10'), three, '--top 10');
	const coverage = await booook(['coverage', 'set', '--json', '--sessions-dir', dir]);
	assert.equal(coverage.code, 0, coverage.stderr);
	const weak = three.filter((s) => s.weak).length;
	assert.ok(weak > 0 && weak < three.length, `${weak} of ${three.length} weak: the set tells the two apart`);
	assert.equal((JSON.parse(coverage.stdout) as { weakly_supported: number }).weakly_supported, weak);
});

test('a summary of one sentence: evidence and coverage count it as one', async (t) => {
	const dir = tempDir('import-summary-one', t);
	const file = join(dir, 'summary.txt');
	writeFileSync(file, 'Victor Frankenstein builds a creature and flees from it.\n');
	assert.equal((await importing(file, 'one', dir)).code, 0);
	const evidence = await booook(['evidence', 'one', '--top', '1', '--sessions-dir', dir]);
	assert.equal(evidence.code, 0, evidence.stderr);
	assert.match(
		evidence.stdout,
		/^Frankenstein — session one, final summary \(node n0\): 1 sentence over \d+ chunks$/mu,
	);
	const coverage = await booook(['coverage', 'one', '--sessions-dir', dir]);
	assert.equal(coverage.code, 0, coverage.stderr);
	assert.match(coverage.stdout, /^cited: 1 of \d+ chunks \(\d+%\) by 1 of 1 sentence$/mu);
	assert.match(coverage.stdout, /^weakly supported: [01] of 1 sentence \(/mu);
});

test('an imported summary is scored through the CLI, and the text report shows its score, its unreadable answers and its coverage', async (t) => {
	const dir = tempDir('import-summary-score', t);
	const file = join(dir, 'summary.txt');
	writeFileSync(file, SUMMARY);
	assert.equal((await importing(file, 'mine', dir)).code, 0);
	const [, copied] = splitSentences(SUMMARY);
	const server = await startFakeApi({
		respond: (input) =>
			annotationQuestion(input.prompt)?.sentences[0] === copied
				? 'I would rather not say.'
				: annotatingReply(input),
	});
	t.after(() => server.close());
	const scored = await booook(
		['score', 'mine', '--provider', 'openai', '--base-url', server.openaiBaseUrl, '--sessions-dir', dir],
		{ env: { OPENAI_API_KEY: 'test-key' } },
	);
	assert.equal(scored.code, 0, scored.stderr);
	const report = await booook(['report', 'mine', '--sessions-dir', dir]);
	assert.equal(report.code, 0, report.stderr);
	assert.match(report.stdout, /^ {2}model {2}[\d.]+ {2}\(1 summary, 1 sentence,/mu);
	assert.match(report.stdout, /^unreadable answers: 1 sentence left out of the score/mu);
	assert.match(report.stdout, /^ {2}Frankenstein, sentence 2: /mu);
	assert.match(report.stdout, /^coverage of the final summary$/mu);
	const json = JSON.parse((await booook(['report', 'mine', '--json', '--sessions-dir', dir])).stdout);
	assert.equal(json.books.Frankenstein.unreadable[0].sentence, 2);
});

test('an imported summary is judged for faithfulness through the CLI, and the report counts those verdicts as judged', async (t) => {
	const dir = tempDir('import-summary-faith', t);
	const file = join(dir, 'summary.txt');
	writeFileSync(file, SUMMARY);
	assert.equal((await importing(file, 'mine', dir)).code, 0);
	const api = await startFakeApi({
		respond: ({ prompt }) => faithfulnessReply(prompt) ?? 'not a faithfulness prompt',
	});
	t.after(() => api.close());
	const judged = await booook(
		['faithfulness', 'mine', '--provider', 'openai', '--base-url', api.openaiBaseUrl, '--sessions-dir', dir],
		{ env: { OPENAI_API_KEY: 'test-key' } },
	);
	assert.equal(judged.code, 0, judged.stderr);
	const json = JSON.parse((await booook(['report', 'mine', '--json', '--sessions-dir', dir])).stdout);
	const book = json.books.Frankenstein;
	assert.deepEqual([book.judged, book.judged_annotations, book.judged_faithfulness], [2, 0, 2]);
	// The judge's claims, by verdict: every claim the fake answered is counted once.
	const [judge] = Object.values(json.faithfulness.validators) as { checks: Record<string, number> }[];
	const { claims, unsplit, ...byVerdict } = judge!.checks;
	assert.ok(claims! >= 2, 'at least a claim a sentence');
	assert.equal(unsplit, 0);
	assert.equal(
		Object.values(byVerdict).reduce((a, b) => a + b, 0),
		claims,
	);
	assert.deepEqual(Object.keys(byVerdict), [
		'supported',
		'contradicted',
		'not_found',
		'unquoted',
		'unreadable',
	]);
	const text = await booook(['report', 'mine', '--sessions-dir', dir]);
	assert.match(text.stdout, /^ {2}Frankenstein {28} +2 +— +— +2$/mu);
});
