import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Aligner } from '../../source/evidence/align.ts';
import { nodeEvidence } from '../../source/evidence/evidence.ts';
import { PassageIndex } from '../../source/evidence/rank.ts';
import { evidenceLookup, shownHit } from '../../source/evidence/units.ts';
import { scoredSpans } from '../../source/score/annotate.ts';
import { chunkedBook, done, treeRun } from '../support/trees.ts';

/**
 * A story in six chunks, and summaries of it that reword every sentence (as a model does): nothing
 * is copied, so tracing word for word says only "any chunk", and alignment must find the place.
 */
const { book: BOOK, chunks: CHUNKS } = chunkedBook([
	'Tomas repaired the lighthouse lamp on Gull Island. The glass had cracked in the winter gale. He ordered new lenses from the mainland.\n',
	'Ines arrived on the supply boat with her brother Rafael. She carried letters from the harbour master. The crossing had taken two days because of fog.\n',
	'Rafael found a sealed chest buried beneath the chapel floor. Inside lay old maps of the reef. Tomas warned him to leave it alone.\n',
	'A fishing trawler ran aground on the northern reef. The lamp had failed that night. Ines rowed out alone and rescued three sailors.\n',
	'The harbour master accused Tomas of neglect. An inquiry was held in the village hall. Witnesses said the lenses had never arrived.\n',
	'Rafael sold the maps to a collector in Lisbon. With the money he bought a new lamp. Tomas forgave him and the light burned again.\n',
]);
const index = new PassageIndex(BOOK, CHUNKS);

const HIER = treeRun('hier', CHUNKS, [
	done(
		'n0',
		'summarize',
		['c0'],
		'Tomas fixes the broken lamp of the Gull Island lighthouse after a gale cracks its glass.',
	),
	done(
		'n1',
		'summarize',
		['c1'],
		"Ines and her brother Rafael come to the island by boat, bringing the harbour master's letters.",
	),
	done('n2', 'summarize', ['c2'], 'Under the chapel, Rafael digs up a chest holding maps of the reef.'),
	done(
		'n3',
		'summarize',
		['c3'],
		'When the lamp fails, a trawler wrecks on the reef and Ines saves three sailors in a rowing boat.',
	),
	done('n4', 'summarize', ['c4'], 'Tomas is blamed for neglect by the harbour master at a village inquiry.'),
	done(
		'n5',
		'summarize',
		['c5'],
		'Rafael sells the reef maps in Lisbon and buys a new lamp, and Tomas forgives him.',
	),
	done(
		'n6',
		'merge',
		['n0', 'n1'],
		'Tomas mends the lighthouse lamp on Gull Island. Ines and Rafael arrive with letters from the harbour master.',
	),
	done(
		'n7',
		'merge',
		['n2', 'n3'],
		'Rafael unearths reef maps in a chest under the chapel. A trawler wrecks when the lamp fails, and Ines rescues the sailors.',
	),
	done(
		'n8',
		'merge',
		['n4', 'n5'],
		'A village inquiry blames Tomas for neglect. Rafael sells the maps in Lisbon to buy a new lamp.',
	),
	done(
		'n9',
		'merge',
		['n6', 'n7', 'n8'],
		[
			'Rafael discovers old reef maps beneath the chapel.',
			'After the lamp fails, Ines saves sailors from a trawler wrecked on the reef.',
			'The chest of maps Rafael found beneath the chapel pays for the new lamp he buys in Lisbon.',
			'A dragon burns the castle of the duke at midnight.',
		].join(' '),
		null,
		'model',
	),
]);

test('hierarchical: a reworded final-summary sentence is aligned down the merges to the chunk it tells', () => {
	const aligner = new Aligner(HIER, index);
	assert.deepEqual(aligner.chunks('n9', 'Rafael discovers old reef maps beneath the chapel.'), [2]);
	// At most two places; a second is followed when it holds what the first leaves out (here "reef").
	const wreck = aligner.chunks(
		'n9',
		'After the lamp fails, Ines saves sailors from a trawler wrecked on the reef.',
	);
	assert.ok(wreck.includes(3) && wreck.length <= 2, `${wreck}`);
	// Joining two events: both of their chunks, and no others.
	assert.deepEqual(
		aligner.chunks(
			'n9',
			'The chest of maps Rafael found beneath the chapel pays for the new lamp he buys in Lisbon.',
		),
		[2, 5],
	);
	// Like nothing the merges read: not narrowed (every chunk under the node), never a wrong guess.
	assert.deepEqual(
		aligner.chunks('n9', 'A dragon burns the castle of the duke at midnight.'),
		[0, 1, 2, 3, 4, 5],
	);
	// Aligned from a middle node too: only the chunks under it.
	assert.deepEqual(aligner.chunks('n8', 'Tomas faces an inquiry for neglect.'), [4]);
});

test('hierarchical evidence: ranked in the aligned chunks first, and the node says it was written by the model', () => {
	const evidence = nodeEvidence(HIER, index, 'n9', { top: 3 });
	assert.deepEqual(
		evidence.map((s) => [s.chunks.length, s.aligned.length <= 2, s.aligned.includes([2, 3, 2, 0][s.index]!)]),
		[
			[6, true, true],
			[6, true, true],
			[6, true, true],
			[6, false, true],
		],
	);
	assert.deepEqual(evidence[2]!.aligned, [2, 5]);
	assert.deepEqual(
		evidence.slice(0, 3).map((s) => s.passages[0]!.chunk),
		[2, 3, 2],
	);
	// The invented sentence is flagged; the paraphrases, each of one place's passage, are not.
	assert.deepEqual(
		evidence.map((s) => s.weak),
		[false, false, false, true],
	);
	// Made up to `top` from the other chunks: a sentence's aligned chunk has one passage here.
	assert.equal(evidence[0]!.passages.length, 3);
	assert.ok(evidence.every((s) => !s.edited));
	// The same text as a hand edit: flagged, so a reader knows its alignment is weaker.
	const edited = treeRun('hier', CHUNKS, [
		...HIER.nodes.slice(0, -1),
		done('n9', 'merge', ['n6', 'n7', 'n8'], HIER.nodes.at(-1)!.versions[0]!.text, null, 'edit'),
	]);
	assert.ok(nodeEvidence(edited, index, 'n9').every((s) => s.edited));
});

const INC = treeRun('inc', CHUNKS, [
	done('n0', 'summarize', ['c0'], 'Tomas fixes the cracked lighthouse lamp on Gull Island.'),
	done(
		'n1',
		'update',
		['c1', 'n0'],
		"Tomas fixes the cracked lighthouse lamp on Gull Island. Ines and Rafael come by boat with the harbour master's letters.",
	),
	done(
		'n2',
		'update',
		['c2', 'n1'],
		"Tomas repairs the island's lamp. Ines and Rafael arrive by boat. Rafael digs a chest of reef maps out from under the chapel.",
	),
	done(
		'n3',
		'compress',
		['n2'],
		'Tomas mends the lamp; Ines and Rafael arrive. Rafael finds reef maps in a chest beneath the chapel.',
	),
	done(
		'n4',
		'update',
		['c3', 'n3'],
		'Tomas mends the lamp; Ines and Rafael arrive. Rafael uncovers reef maps under the chapel. The lamp fails, a trawler wrecks on the reef, and Ines rescues three sailors.',
	),
]);

test('incremental: a sentence goes back to the step where its content first entered the running summary, and that step’s chunk', () => {
	const aligner = new Aligner(INC, index);
	// Reworded at every step since step 2, which read chunk 2.
	assert.deepEqual(aligner.chunks('n4', 'Rafael uncovers reef maps under the chapel.'), [2]);
	// New at the last step: its own chunk, though the summary before it named the lamp.
	assert.deepEqual(
		aligner.chunks('n4', 'The lamp fails, a trawler wrecks on the reef, and Ines rescues three sailors.'),
		[3],
	);
	// Like nothing before the last step and nothing in its chunk (typed in by hand): not narrowed.
	assert.deepEqual(aligner.chunks('n4', 'A dragon burns the castle of the duke at midnight.'), [0, 1, 2, 3]);
	// A compressed sentence that joins two: back through the compression to both first steps.
	assert.deepEqual(aligner.chunks('n3', 'Tomas mends the lamp; Ines and Rafael arrive.'), [0, 1]);
	const evidence = nodeEvidence(INC, index, 'n4', { top: 1 });
	assert.deepEqual(
		evidence.map((s) => s.aligned),
		[[0, 1], [2], [3]],
	);
	for (const s of evidence) assert.ok(s.aligned.includes(s.passages[0]!.chunk));
});

test("a scored summary's evidence is numbered by the sentences BooookScore counts in it (a line break inside one is no boundary)", () => {
	const { book, chunks } = chunkedBook([
		'Victor leaves Geneva for the university at Ingolstadt. ',
		'The creature kills William near the city gates. ',
	]);
	const text = 'Victor sets out\nfor the university at Ingolstadt. The creature kills William.';
	const run = treeRun('hier', chunks, [done('n0', 'summarize', ['c0', 'c1'], text)]);
	const summary = { id: 's0' as const, text, node: 'n0' as const, units: 'nltk' as const };
	const lookup = evidenceLookup(run, book, new PassageIndex(book, chunks), [summary]);
	// Sentence 1 (counted from 0) is the second of the two NLTK counts: the killing, in chunk 2.
	assert.equal(scoredSpans(summary).length, 2);
	assert.equal(lookup({ summary: 's0', sentence: 1 })[0]?.chunk, 1);
	// Cut at every line as before, the same summary has three sentences and the killing is the third.
	const lines = evidenceLookup(run, book, new PassageIndex(book, chunks), [{ ...summary, units: undefined }]);
	assert.equal(lines({ summary: 's0', sentence: 2 })[0]?.chunk, 1);
});

test('a passage shown to a walk or a judge says its chapter, in a book with headings', () => {
	const { book, chunks } = chunkedBook([
		'Chapter 1\nVictor leaves Geneva.\n',
		'Chapter 2\nThe creature wakes.\n',
	]);
	const hit = new PassageIndex(book, chunks).rank('The creature wakes.', 1)[0]!;
	const at = Math.round((100 * book.indexOf('The creature')) / book.length);
	assert.equal(hit.start, book.indexOf('The creature'));
	assert.equal(
		shownHit({ chunks }, book, hit).where,
		`"Chapter 2", chunk 2 of 2, ${at}% into the book, word for word`,
	);
	// No headings: no chapter, the rest as before.
	const plain = chunkedBook(['Victor leaves Geneva.\n', 'The creature wakes.\n']);
	const other = new PassageIndex(plain.book, plain.chunks).rank('The creature wakes.', 1)[0]!;
	assert.match(
		shownHit(plain, plain.book, other).where,
		/^chunk 2 of 2, \d+% into the book, word for word$/u,
	);
});
