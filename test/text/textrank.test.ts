import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	contentTokens,
	pageRank,
	rankOrder,
	similarityGraph,
	textRank,
	wordTokens,
	type Graph,
} from '../../source/text/textrank.ts';

function graphOf(size: number, edges: [number, number, number][]): Graph {
	const neighbors: number[][] = Array.from({ length: size }, () => []);
	const weights: number[][] = Array.from({ length: size }, () => []);
	for (const [a, b, w] of edges) {
		neighbors[a]!.push(b);
		weights[a]!.push(w);
		neighbors[b]!.push(a);
		weights[b]!.push(w);
	}
	return { size, neighbors, weights };
}

const sum = (xs: ArrayLike<number>) => Array.from(xs).reduce((s, x) => s + x, 0);

test('wordTokens lowercases, drops punctuation and keeps inner apostrophes', () => {
	assert.deepEqual(wordTokens("Anne’s DOG didn't run—far, 42 times!"), [
		"anne's",
		'dog',
		"didn't",
		'run',
		'far',
		'42',
		'times',
	]);
	assert.deepEqual(wordTokens('Élodie mangea.'), ['élodie', 'mangea']);
	assert.deepEqual(wordTokens('* * * —'), []);
});

test('contentTokens leaves out function words', () => {
	assert.deepEqual(contentTokens('The keeper and his dog walked to the harbor.'), [
		'keeper',
		'dog',
		'walked',
		'harbor',
	]);
});

test('similarityGraph is symmetric, without self-loops, and links only sentences sharing a term', () => {
	const docs = [
		['keeper', 'harbor'],
		['keeper', 'harbor'],
		['harbor', 'storm'],
		['violin', 'penguin'],
	];
	const g = similarityGraph(docs);
	const weight = (a: number, b: number) => {
		const k = g.neighbors[a]!.indexOf(b);
		return k < 0 ? 0 : g.weights[a]![k]!;
	};
	for (let a = 0; a < docs.length; a++) {
		assert.ok(!g.neighbors[a]!.includes(a));
		for (let b = 0; b < docs.length; b++) assert.equal(weight(a, b), weight(b, a));
	}
	assert.ok(Math.abs(weight(0, 1) - 1) < 1e-12, 'identical sentences have cosine 1');
	assert.ok(weight(0, 2) > 0 && weight(0, 2) < 1);
	assert.equal(g.neighbors[3]!.length, 0, 'the outlier shares nothing');
});

test('pageRank on an empty graph and a graph without edges', () => {
	assert.equal(pageRank(graphOf(0, [])).length, 0);
	const scores = pageRank(graphOf(4, []));
	for (const s of scores) assert.ok(Math.abs(s - 0.25) < 1e-12);
});

test('pageRank matches the closed form of a star and sums to 1', () => {
	// Centre c, k leaves l: l = (1-d)/n + d·c/k and c = (1-d)/n + d·k·l.
	const k = 5;
	const n = k + 1;
	const d = 0.85;
	const scores = pageRank(
		graphOf(
			n,
			Array.from({ length: k }, (_, i) => [0, i + 1, 1] as [number, number, number]),
		),
	);
	const base = (1 - d) / n;
	const leaf = (base * (1 + d / k)) / (1 - d * d);
	const centre = base + d * k * leaf;
	assert.ok(Math.abs(scores[0]! - centre) < 1e-9, `centre ${scores[0]} vs ${centre}`);
	for (let i = 1; i < n; i++) assert.ok(Math.abs(scores[i]! - leaf) < 1e-9);
	assert.ok(Math.abs(sum(scores) - 1) < 1e-9);
});

test('pageRank follows edge weights', () => {
	// Node 0 is tied strongly to 1 and weakly to 2, so 1 gets more of its score than 2 does.
	const scores = pageRank(
		graphOf(3, [
			[0, 1, 0.9],
			[0, 2, 0.1],
		]),
	);
	assert.ok(scores[1]! > scores[2]!);
	assert.ok(Math.abs(sum(scores) - 1) < 1e-9);
});

test('pageRank stops after maxIterations', () => {
	const g = graphOf(3, [
		[0, 1, 1],
		[1, 2, 1],
	]);
	const once = pageRank(g, { maxIterations: 1 });
	const converged = pageRank(g);
	assert.notDeepEqual(Array.from(once), Array.from(converged));
	assert.deepEqual(Array.from(pageRank(g, { maxIterations: 0 })), [1 / 3, 1 / 3, 1 / 3]);
});

const CENTRAL = [
	'Quantum penguins juggle seventeen violins.',
	'The keeper lived alone in the lighthouse.',
	'A storm came over the harbor at night.',
	'The old lighthouse keeper watched the storm over the harbor.',
	'Ships in the harbor feared the storm.',
	'The keeper lit the lighthouse lamp.',
];

test('textRank ranks a sentence sharing words with many others above an outlier', () => {
	const scores = textRank(CENTRAL);
	const order = rankOrder(scores);
	assert.equal(order[0], 3, 'the central sentence ranks first');
	assert.equal(order[order.length - 1], 0, 'the outlier ranks last');
	assert.ok(Math.abs(sum(scores) - 1) < 1e-9);
});

test('textRank is deterministic', () => {
	assert.deepEqual(Array.from(textRank(CENTRAL)), Array.from(textRank([...CENTRAL])));
});

test('rankOrder sorts by descending score and breaks ties by position', () => {
	assert.deepEqual(rankOrder([0.1, 0.3, 0.3, 0.2, 0.3]), [1, 2, 4, 3, 0]);
	assert.deepEqual(rankOrder([]), []);
	// Sentences sharing nothing tie, and then the earlier one wins.
	assert.deepEqual(rankOrder(textRank(['Red apples.', 'Blue whales.', 'Green tea.'])), [0, 1, 2]);
});
