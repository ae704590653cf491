import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import {
	characterNames,
	nameSubstitution,
	namesIn,
	otherBookScene,
	substituteNames,
} from '../source/memory/names.ts';
import { properNames } from '../source/text/stems.ts';
import { BOOKS_DIR } from './support/repo-data.ts';

const book = (name: string): string => readFileSync(join(BOOKS_DIR, `${name}.txt`), 'utf8');
const frankenstein = book('frankenstein');
const pride = book('pride-and-prejudice');
const warAndPeace = book('war-and-peace');

test("a book's character names come first, titles, pronouns, months and places left out", () => {
	const names = characterNames(pride);
	assert.deepEqual(names.slice(0, 4), ['Darcy', 'Elizabeth', 'Bennet', 'Bingley']);
	for (const name of ['Jane', 'Wickham', 'Lydia', 'Collins']) assert.ok(names.includes(name), name);
	for (const word of ['Mr', 'Mrs', 'Miss', 'Lady', 'Sir', 'I', 'Chapter', 'November', 'Monday', 'London'])
		assert.ok(!names.includes(word), word);
	const theirs = characterNames(frankenstein);
	for (const name of ['Elizabeth', 'Clerval', 'Justine', 'Felix', 'Victor'])
		assert.ok(theirs.includes(name), name);
	assert.ok(!theirs.includes('Geneva'), 'a town is no character');
	assert.equal(characterNames(pride, 3).length, 3);
});

test('a name seen only after a title counts, and a word written lowercase too is no name', () => {
	const text =
		'Mr. Darcy came in. Mr. Darcy sat. The Will was read, and he said he will go. Mrs. Hill laughed.';
	const names = characterNames(text);
	assert.deepEqual(names, ['Darcy', 'Hill']);
});

test('properNames still gives the stems of words capitalized inside sentences', () => {
	assert.deepEqual([...properNames('Then Victor saw Elizabeth. The creature fled from Victor.')].sort(), [
		'elizabeth',
		'victor',
	]);
});

test('substitution is rank for rank, whole words only, part by part, possessives kept', () => {
	const map = nameSubstitution(['Darcy', 'Elizabeth', 'Bennet', 'Jane'], ['Victor', 'Clerval', 'Justine']);
	assert.deepEqual(
		[...map],
		[
			['Darcy', 'Victor'],
			['Elizabeth', 'Clerval'],
			['Bennet', 'Justine'],
		],
	);
	assert.equal(
		substituteNames(
			"Darcy's letter reached Elizabeth Bennet; Miss Bennet and Janet read Darcy's words.",
			map,
		),
		"Victor's letter reached Clerval Justine; Miss Justine and Janet read Victor's words.",
	);
	// One pass: a replacement that is itself a key is not replaced again.
	const swap = nameSubstitution(['Anne', 'Mary'], ['Mary', 'Anne']);
	assert.equal(substituteNames('Anne met Mary.', swap), 'Mary met Anne.');
	assert.deepEqual(namesIn("Darcy's sister met Janet.", ['Jane', 'Darcy', 'Georgiana']), ['Darcy']);
	// A summary may drop the accents its book writes.
	const accented = nameSubstitution(['Natásha', 'Rostóv'], ['Elizabeth', 'Bennet']);
	assert.equal(
		substituteNames("Natasha Rostov's ball; Natásha danced.", accented),
		"Elizabeth Bennet's ball; Elizabeth danced.",
	);
	assert.deepEqual(namesIn('Natasha smiled.', ['Pierre', 'Natásha']), ['Natásha']);
});

test("scenes of another book: names replaced by this book's, and a scene naming this book's character refused", () => {
	const thisNames = characterNames(frankenstein);
	const otherNames = characterNames(pride);
	const map = nameSubstitution(otherNames, thisNames);
	const paragraphs = pride.split(/\n\s*\n/u).filter((p) => p.length > 200 && p.length < 3000);
	let usable = 0;
	let refused = 0;
	for (const paragraph of paragraphs) {
		const scene = otherBookScene(paragraph, otherNames, thisNames, map);
		if (namesIn(paragraph, thisNames).length > 0) {
			assert.equal(scene, null, 'a scene naming a character of this book is refused');
			refused++;
			continue;
		}
		if (scene === null) continue;
		usable++;
		const left = namesIn(scene, otherNames).filter((n) => !thisNames.includes(n));
		assert.deepEqual(left, [], `no name of the other book is left: ${scene.slice(0, 80)}`);
	}
	assert.ok(usable > 50, `${usable} usable scenes`);
	assert.ok(refused > 50, `${refused} refused scenes`);
	// A scene naming Darcy (rank 1) becomes one naming this book's first character.
	const darcy = otherBookScene('Mr. Darcy bowed to Mr. Bingley.', otherNames, thisNames, map);
	assert.equal(darcy, `Mr. ${map.get('Darcy')} bowed to Mr. ${map.get('Bingley')}.`);
	// A scene written without the accents of War and Peace loses its names too.
	const russian = characterNames(warAndPeace);
	const written = "Natasha and Pierre talk at the Rostovs' house while Prince Andrew listens.";
	const scene = otherBookScene(written, russian, otherNames, nameSubstitution(russian, otherNames));
	assert.ok(scene !== null);
	assert.deepEqual(namesIn(scene, russian), []);
	const [natasha, pierre, rostov, andrew] = ['Natásha', 'Pierre', 'Rostóv', 'Andrew'].map((n) =>
		nameSubstitution(russian, otherNames).get(n),
	);
	assert.ok([natasha, pierre, rostov, andrew].every((n) => n !== undefined && otherNames.includes(n)));
	assert.equal(
		scene,
		`${natasha} and ${pierre} talk at the ${rostov}s' house while Prince ${andrew} listens.`,
	);
	// A name of the other book with no counterpart here makes the scene unusable.
	assert.equal(
		otherBookScene(
			'Darcy met Georgiana.',
			['Darcy', 'Georgiana'],
			['Victor'],
			nameSubstitution(['Darcy'], ['Victor']),
		),
		null,
	);
});
