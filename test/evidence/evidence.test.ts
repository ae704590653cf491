import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Chunk, Node } from '../../source/domain.ts';
import { passageWhere } from '../../source/evidence/book-place.ts';
import { chapterName } from '../../source/format/places.ts';
import { coverageOf, leanOf } from '../../source/evidence/coverage.ts';
import { coverageLines } from '../../source/format/coverage.ts';
import { nodeEvidence } from '../../source/evidence/evidence.ts';
import { splitPassages } from '../../source/evidence/passages.ts';
import { Tracer } from '../../source/evidence/provenance.ts';
import { PassageIndex } from '../../source/evidence/rank.ts';
import { stripChart } from '../../source/format/strip.ts';
import { evidenceLookup } from '../../source/evidence/units.ts';
import { chunkedBook, done, treeRun } from '../support/trees.ts';

/** Three chunks: two paragraphs of two sentences, one paragraph of two, one of three. */
const PARTS = [
	'Victor studied chemistry at Ingolstadt. He built a creature from dead parts.\nThe creature opened its yellow eye. Victor fled in horror.\n',
	'Elizabeth wrote letters from Geneva. Justine was accused of murder.\n',
	'The creature asked for a companion. Victor destroyed the female creature on the island. Henry was found dead on the shore.\n',
];
const { book: BOOK, chunks: CHUNKS } = chunkedBook(PARTS);
const run = (method: 'hier' | 'inc', nodes: Node[]) => treeRun(method, CHUNKS, nodes);

// A tree whose sentences are copied, carried through a context, and newly written at the top.
const HIER = run('hier', [
	done('n0', 'summarize', ['c0'], 'He built a creature from dead parts. Victor fled in horror.'),
	done('n1', 'summarize', ['c1'], 'Justine was accused of murder.'),
	done('n2', 'summarize', ['c2'], 'Victor destroyed the female creature on the island.'),
	done('n3', 'merge', ['n0', 'n1'], 'He built a creature from dead parts. Justine was accused of murder.'),
	done(
		'n4',
		'merge',
		['n2'],
		'Justine was accused of murder. Victor destroyed the female creature on the island.',
		'n3',
	),
	done(
		'n5',
		'merge',
		['n3', 'n4'],
		'He built a creature from dead parts.  The monster killed many people on the shore. Victor destroyed the female creature on the island.',
	),
]);

// A running summary: a sentence kept since step 1, one made at a compression, one added last.
const INC = run('inc', [
	done(
		'n0',
		'summarize',
		['c0'],
		'Victor studied chemistry at Ingolstadt. He built a creature from dead parts.',
	),
	done('n1', 'update', ['c1', 'n0'], 'He built a creature from dead parts. Justine was accused of murder.'),
	done('n2', 'compress', ['n1'], 'He built a creature. Justine was accused\nof murder.'),
	done(
		'n3',
		'update',
		['c2', 'n2'],
		'He built a creature. Justine was accused of murder. The creature asked for a companion.',
	),
]);

const text = (p: { start: number; end: number }) => BOOK.slice(p.start, p.end);

test('passages are a few sentences of one paragraph inside one chunk, and cover every sentence once', () => {
	const passages = splitPassages(BOOK, CHUNKS, 3);
	assert.deepEqual(
		passages.map((p) => [p.chunk, text(p)]),
		[
			[0, 'Victor studied chemistry at Ingolstadt. He built a creature from dead parts.'],
			[0, 'The creature opened its yellow eye. Victor fled in horror.'],
			[1, 'Elizabeth wrote letters from Geneva. Justine was accused of murder.'],
			[
				2,
				'The creature asked for a companion. Victor destroyed the female creature on the island. Henry was found dead on the shore.',
			],
		],
	);
	assert.deepEqual(
		splitPassages(BOOK, CHUNKS, 2)
			.filter((p) => p.chunk === 2)
			.map(text),
		[
			'The creature asked for a companion. Victor destroyed the female creature on the island.',
			'Henry was found dead on the shore.',
		],
	);
	assert.equal(splitPassages(BOOK, CHUNKS, 1).length, 9);
	assert.deepEqual(
		splitPassages(BOOK, CHUNKS, 1).map((p) => p.index),
		[0, 1, 2, 3, 4, 5, 6, 7, 8],
	);
});

test('hierarchical: a sentence is traced through the merges that carried it (inputs and context) to the chunk of its level-0 summary', () => {
	const sources = new Tracer(HIER).sources('n5');
	assert.deepEqual(
		sources.map((s) => [s.text, s.origins, s.chunks, s.direct]),
		[
			['He built a creature from dead parts.', ['n0'], [0], [0]],
			// Written at the top merge: it can come from anything under that merge.
			['The monster killed many people on the shore.', ['n5'], [0, 1, 2], []],
			['Victor destroyed the female creature on the island.', ['n2'], [2], [2]],
		],
	);
	// n4 took "Justine..." from its context, the previous merge: traced on through n3 to chunk 1.
	assert.deepEqual(new Tracer(HIER).sources('n4')[0]!.chunks, [1]);
	// The sentence's range is in the node's own text.
	const [, second] = sources;
	assert.equal(
		HIER.nodes[5]!.versions[0]!.text.slice(second!.span.start, second!.span.end),
		'The monster killed many people on the shore.',
	);
});

test('incremental: a sentence can come from the chunks read by the step it first appeared at', () => {
	const sources = new Tracer(INC).sources('n3');
	assert.deepEqual(
		sources.map((s) => [s.text, s.origins, s.chunks, s.direct]),
		[
			// Reworded at the compression after step 1: chunks 0 and 1.
			['He built a creature.', ['n2'], [0, 1], []],
			// Present since step 1 (whitespace aside): chunks 0..1, chunk 1 read directly.
			['Justine was accused of murder.', ['n1'], [0, 1], [1]],
			['The creature asked for a companion.', ['n3'], [0, 1, 2], [2]],
		],
	);
});

test("evidence: passages of the candidate chunks by BM25, a copied sentence's own passage first, with offsets into the book", () => {
	const index = new PassageIndex(BOOK, CHUNKS);
	const evidence = nodeEvidence(HIER, index, 'n5', { top: 2 });
	assert.equal(evidence.length, 3);
	for (const s of evidence) {
		assert.ok(s.passages.length > 0 && s.passages.length <= 2);
		for (const p of s.passages) assert.ok(s.chunks.includes(p.chunk), `${p.chunk} not in ${s.chunks}`);
	}
	assert.ok(text(evidence[0]!.passages[0]!).includes('He built a creature from dead parts.'));
	assert.equal(evidence[0]!.passages[0]!.verbatim, true);
	assert.ok(text(evidence[2]!.passages[0]!).includes('Victor destroyed the female creature on the island.'));
	// A sentence written by the model: no passage holds it, the best lexical match leads.
	assert.equal(
		evidence[1]!.passages.every((p) => !p.verbatim),
		true,
	);
	assert.equal(text(evidence[1]!.passages[0]!), text(splitPassages(BOOK, CHUNKS)[3]!));
	// Sharing function words only is no evidence.
	assert.deepEqual(index.rank('The monster killed many people.', 3), []);
	// Only the sentences asked for; the same answer every time.
	assert.deepEqual(
		nodeEvidence(HIER, index, 'n5', { sentences: [2] }).map((s) => s.index),
		[2],
	);
	assert.deepEqual(nodeEvidence(HIER, index, 'n5'), nodeEvidence(HIER, new PassageIndex(BOOK, CHUNKS), 'n5'));
	// Limited to chunks, and nothing for a query that shares no word with the book.
	// Both passages of chunk 0 name the creature; chunk 1 shares no word.
	assert.deepEqual(
		index.rank('female creature island', 5, { chunks: [0, 1] }).map((h) => h.chunk),
		[0, 0],
	);
	assert.equal(index.rank('female creature island', 1)[0]!.chunk, 2);
	assert.deepEqual(index.rank('zebra quantum', 3), []);
	// Function words only: found word for word, or not at all.
	assert.deepEqual(
		index.rank('Victor fled', 3).map((h) => [h.chunk, h.verbatim]),
		[
			[0, true],
			[0, false],
			[2, false],
		],
	);
	assert.deepEqual(
		index.rank('on the', 3).map((h) => [text(h), h.score, h.verbatim]),
		[[text(splitPassages(BOOK, CHUNKS)[3]!), 0, true]],
	);
	assert.deepEqual(index.rank('on the', 3, { chunks: [0] }), []);
	const inc = nodeEvidence(INC, index, 'n3', { top: 1 });
	assert.deepEqual(
		inc.map((s) => s.passages[0]!.chunk),
		[0, 1, 2],
	);
});

test('coverage: share cited, mean position, halves and their lean on a small hand-checked case', () => {
	// Four chunks of ten characters: positions 0.125, 0.375, 0.625, 0.875.
	const chunks: Chunk[] = [0, 1, 2, 3].map((i) => ({ index: i, start: i * 10, end: i * 10 + 10, tokens: 3 }));
	const c = coverageOf(chunks, 40, [0, 0, 1, null], 4);
	assert.deepEqual(c.citations, [2, 1, 0, 0]);
	assert.equal(c.sentences, 4);
	assert.equal(c.citing, 3);
	assert.equal(c.share, 0.5);
	assert.ok(Math.abs(c.meanPosition! - (0.125 * 2 + 0.375) / 3) < 1e-12);
	assert.deepEqual(
		c.parts.map((p) => p.share),
		[1, 1, 0, 0],
	);
	assert.deepEqual(c.halves, { first: 1, second: 0, ratio: 0 });
	assert.equal(c.lean, 'less');
	for (const x of [c.share, c.meanPosition!, c.halves.first!, c.halves.second!]) assert.ok(x >= 0 && x <= 1);
	// Even coverage: no lean.
	const even = coverageOf(chunks, 40, [0, 1, 2, 3], 10);
	assert.equal(even.share, 1);
	assert.equal(even.meanPosition, 0.5);
	assert.equal(even.lean, 'even');
	assert.equal(even.halves.ratio, 1);
	assert.equal(even.parts.filter((p) => p.share === null).length, 6);
	// Nothing cited.
	const none = coverageOf(chunks, 40, [null], 10);
	assert.deepEqual([none.share, none.meanPosition, none.halves.ratio], [0, null, null]);
	// No lean to speak of: not "no clear lean", as if even.
	assert.equal(none.lean, null);
});

test('coverage says one lean: halves cited alike read as no lean, though the uncited chunks sit at the end of each half', () => {
	// Ten chunks; 0-2 and 5-7 cited: 60% of each half. A slope of cited on position is -0.73 here,
	// which once printed "later parts cited less" beside halves of 60% and 60%.
	const chunks: Chunk[] = Array.from({ length: 10 }, (_, i) => ({
		index: i,
		start: i * 10,
		end: i * 10 + 10,
		tokens: 3,
	}));
	const coverage = coverageOf(chunks, 100, [0, 1, 2, 5, 6, 7]);
	assert.deepEqual(coverage.halves, { first: 0.6, second: 0.6, ratio: 1 });
	assert.equal(coverage.lean, 'even');
	const lines = coverageLines({ coverage, chapters: [], weak: 0 }, 80);
	const lean = lines.find((l) => l.startsWith('lean: '));
	assert.equal(
		lean,
		'lean: first half 60% of its chunks cited, second half 60% (second ÷ first 1.00): no clear lean',
	);
	assert.ok(!lines.some((l) => /slope|cited less/u.test(l)), lines.join('\n'));
	assert.deepEqual(
		[leanOf(0.6, 0.5), leanOf(0.5, 0.6), leanOf(0, 0.2), leanOf(0, 0), leanOf(null, 1)],
		['less', 'more', 'more', null, null],
	);
});

test('strip chart: one cell per bucket of chunks, exactly the width asked for', () => {
	assert.equal(stripChart([1, 1, 0, 0], 8), '████····');
	assert.equal(stripChart([1, 1, 0, 0], 2), '█·');
	assert.equal(stripChart([1, 0, 0, 1, 1, 1], 2), '░█');
	assert.equal(stripChart([2, 1, 0], 1), '▒');
	assert.equal(stripChart([1, 1, 1, 0], 1), '▓');
	const many = Array.from({ length: 97 }, (_, i) => i % 3);
	for (const width of [1, 7, 40, 80, 200]) assert.equal([...stripChart(many, width)].length, width);
	assert.equal(stripChart([], 10), '');
	assert.throws(() => stripChart([1], 0), /width/);
});

test("evidence lookup for walks: a scored summary's sentence gives its passages with where they are; an imported one none", () => {
	const index = new PassageIndex(BOOK, CHUNKS);
	const scored = { id: 's0' as const, text: HIER.nodes[5]!.versions[0]!.text, node: 'n5' as const };
	const lookup = evidenceLookup(
		HIER,
		BOOK,
		index,
		[scored, { id: 's1', text: 'Anything at all.', node: null }],
		2,
	);
	const first = lookup({ summary: 's0', sentence: 0 });
	assert.equal(
		first[0]!.text,
		'Victor studied chemistry at Ingolstadt. He built a creature from dead parts.',
	);
	assert.equal(
		first[0]!.where,
		'chunk 1 of 3, 0% into the book, word for word',
		'chunks count from 1, as everywhere a person reads them',
	);
	assert.equal(BOOK.slice(first[0]!.start, first[0]!.end), first[0]!.text);
	assert.match(
		lookup({ summary: 's0', sentence: 2 })[0]!.where,
		/^chunk 3 of 3, \d+% into the book, word for word$/u,
	);
	assert.deepEqual(lookup({ summary: 's0', sentence: 9 }), []);
	assert.deepEqual(lookup({ summary: 's1', sentence: 0 }), []);
	assert.deepEqual(lookup({ summary: 's9', sentence: 0 }), []);
});

test("a chapter is named by its heading, quoted, without the heading's escape sequences", () => {
	const book = 'Chapter 1 \x1b]0;pwned\x07The \x9b31mStart\n\nIt began.\n';
	const hit = { chunk: 0, start: book.indexOf('It'), verbatim: false };
	assert.equal(chapterName({ title: 'Chapter 1 \x1b]0;pwned\x07The \x9b31mStart' }), '"Chapter 1 The Start"');
	assert.equal(passageWhere(book, 1, hit, ', '), '"Chapter 1 The Start", chunk 1 of 1, 78% into the book');
});
