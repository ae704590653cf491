import nlp from 'compromise';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import {
	allNames,
	bookNames,
	NEUTRAL_PLACE,
	nameSubstitution,
	namesIn,
	otherBookScene,
	randomNames,
	substituteNames,
	type BookNames,
} from '../../source/memory/names.ts';
import { properNames } from '../../source/text/stems.ts';
import { BOOKS_DIR } from '../support/repo-data.ts';

const book = (name: string): string => readFileSync(join(BOOKS_DIR, `${name}.txt`), 'utf8');
const frankenstein = book('frankenstein');
const pride = book('pride-and-prejudice');
const warAndPeace = book('war-and-peace');
const names = {
	frankenstein: bookNames(frankenstein),
	pride: bookNames(pride),
	warAndPeace: bookNames(warAndPeace),
};
const person = (of: BookNames, name: string) => of.people.find((p) => p.name === name);

test("a book's people, with given names and surnames apart and a gender, and its places apart from them", () => {
	const { pride: p, frankenstein: f, warAndPeace: w } = names;
	assert.deepEqual(
		p.people.slice(0, 4).map((x) => x.name),
		['Darcy', 'Elizabeth', 'Bennet', 'Bingley'],
	);
	// Surnames, though the tagger takes "-ley" and "-ham" for places.
	for (const name of ['Darcy', 'Bennet', 'Bingley', 'Wickham', 'Collins'])
		assert.equal(person(p, name)?.role, 'last', name);
	for (const name of ['Elizabeth', 'Jane', 'Lydia', 'Charlotte']) {
		assert.equal(person(p, name)?.role, 'first', name);
		assert.equal(person(p, name)?.gender, 'female', name);
	}
	assert.equal(person(p, 'Darcy')?.gender, 'male');
	assert.equal(person(p, 'William')?.gender, 'male');
	assert.equal(person(f, 'Victor')?.gender, 'male');
	assert.equal(person(f, 'Justine')?.gender, 'female');
	assert.equal(person(w, 'Natásha')?.gender, 'female');
	assert.equal(person(w, 'Pierre')?.gender, 'male');
	// Places, the Deity, titles, months and forms of address are no people.
	const everyone = [...p.people, ...f.people, ...w.people].map((x) => x.name);
	for (const word of [
		'Pemberley',
		'Longbourn',
		'Netherfield',
		'Meryton',
		'London',
		'England',
		'Geneva',
		'Ingolstadt',
		'Moscow',
		'Smolénsk',
		'God',
		'Heaven',
		'Mr',
		'Lady',
		'November',
		'Monday',
		'Majesty',
	])
		assert.ok(!everyone.includes(word), `${word} is no person`);
	for (const place of ['Pemberley', 'Longbourn', 'Netherfield', 'London'])
		assert.ok(p.places.includes(place), place);
	for (const place of ['Geneva', 'Ingolstadt']) assert.ok(f.places.includes(place), place);
	for (const place of ['Moscow', 'Smolénsk']) assert.ok(w.places.includes(place), place);
});

test('the map: given names to given names and surnames to surnames of the same gender, places to places', () => {
	const from = names.pride;
	const to = names.frankenstein;
	const map = nameSubstitution(from, to);
	const people = new Map(to.people.map((p) => [p.name, p]));
	for (const p of from.people) {
		const target = map.get(p.name);
		assert.ok(target !== undefined, `${p.name} is replaced`);
		const them = people.get(target);
		assert.ok(them, `${p.name} → ${target}, a person of this book`);
		assert.equal(them.role, p.role, `${p.name} → ${target}: ${p.role} to ${them.role}`);
		if (p.gender !== null && them.gender !== null)
			assert.equal(them.gender, p.gender, `${p.name} → ${target}`);
	}
	// None of the mix-ups: a person became a place or the Deity, a man a woman.
	for (const p of from.people) assert.ok(!to.places.includes(map.get(p.name)!), p.name);
	for (const place of from.places)
		assert.ok(to.places.includes(map.get(place)!), `${place} → ${map.get(place)}`);
	assert.equal(people.get(map.get('Darcy')!)!.gender, 'male');
	assert.equal(people.get(map.get('Wickham')!)!.role, 'last');
	// A book naming no place: another's places become a neutral one.
	const noPlaces = nameSubstitution(from, { ...to, places: [] });
	assert.equal(noPlaces.get('Pemberley'), NEUTRAL_PLACE);
});

test('substitution is whole words only, part by part, possessives and family plurals kept, accents optional', () => {
	const map = new Map([
		['Darcy', 'Clerval'],
		['Elizabeth', 'Justine'],
		['Bennet', 'Kirwin'],
		['Pemberley', 'Geneva'],
	]);
	assert.equal(
		substituteNames(
			"Darcy's letter reached Elizabeth Bennet at Pemberley; the Bennets and Janet read Darcy's words.",
			map,
		),
		"Clerval's letter reached Justine Kirwin at Geneva; the Kirwins and Janet read Clerval's words.",
	);
	// One pass: a replacement that is itself a key is not replaced again.
	assert.equal(
		substituteNames(
			'Anne met Mary.',
			new Map([
				['Anne', 'Mary'],
				['Mary', 'Anne'],
			]),
		),
		'Mary met Anne.',
	);
	assert.deepEqual(namesIn("Darcy's sister met Janet.", ['Jane', 'Darcy', 'Georgiana']), ['Darcy']);
	assert.equal(
		substituteNames(
			"Natasha Rostov's ball",
			new Map([
				['Natásha', 'Elizabeth'],
				['Rostóv', 'Bennet'],
			]),
		),
		"Elizabeth Bennet's ball",
	);
});

test("another book's scenes carry this book's names: no person, place or 'God' of the other book left, and Pemberley never reaches a Frankenstein option", () => {
	const self = names.frankenstein;
	const other = names.pride;
	const map = nameSubstitution(other, self);
	const paragraphs = pride.split(/\n\s*\n/u).filter((p) => p.length > 200 && p.length < 3000);
	let usable = 0;
	for (const paragraph of paragraphs) {
		const scene = otherBookScene(paragraph, other, self, map);
		if (scene === null) continue;
		usable++;
		const left = namesIn(scene, allNames(other)).filter((n) => !allNames(self).includes(n));
		assert.deepEqual(left, [], `no name of the other book is left: ${scene.slice(0, 120)}`);
		for (const place of ['Pemberley', 'Longbourn', 'Netherfield', 'Meryton', 'Rosings', 'Hunsford'])
			assert.ok(!scene.includes(place), `${place} in: ${scene.slice(0, 120)}`);
	}
	// Paragraphs naming Elizabeth (a name of both books) are used too: most paragraphs survive.
	assert.ok(usable > 0.9 * paragraphs.length, `${usable} of ${paragraphs.length} usable`);
	const darcy = otherBookScene('Mr. Darcy bowed to Mr. Bingley at Pemberley.', other, self, map);
	assert.equal(
		darcy,
		`Mr. ${map.get('Darcy')} bowed to Mr. ${map.get('Bingley')} at ${map.get('Pemberley')}.`,
	);
	// A scene written without the accents of War and Peace loses its names too.
	const russian = names.warAndPeace;
	const toPride = nameSubstitution(russian, other);
	const written = "Natasha and Pierre talk at the Rostovs' house in Moscow while Prince Andrew listens.";
	const scene = otherBookScene(written, russian, other, toPride);
	assert.ok(scene !== null);
	assert.deepEqual(namesIn(scene, allNames(russian)), []);
	assert.equal(
		scene,
		`${toPride.get('Natásha')} and ${toPride.get('Pierre')} talk at the ${toPride.get('Rostóv')}s' house in ${toPride.get('Moscow')} while Prince ${toPride.get('Andrew')} listens.`,
	);
	// A word the other book capitalizes as a name, which this one never does, makes the scene unusable.
	const lone: BookNames = { people: [], places: [], others: ['Uhlans', 'Christmas'] };
	const here: BookNames = { people: [], places: [], others: ['Christmas'] };
	assert.equal(otherBookScene('The Uhlans rode by.', lone, here, new Map()), null);
	assert.equal(
		otherBookScene('At Christmas they rode by.', lone, here, new Map()),
		'At Christmas they rode by.',
	);
});

test("this book's own names randomized: people by role and gender, places as places, from the tagger's lexicon, none of the book's, the same for a seed", () => {
	const own = names.frankenstein;
	const map = randomNames(own, 3);
	assert.deepEqual([...randomNames(own, 3)], [...map]);
	assert.notDeepEqual([...randomNames(own, 4)], [...map]);
	const ownNames = new Set([...allNames(own), ...own.others]);
	for (const name of allNames(own)) {
		const to = map.get(name);
		assert.ok(to !== undefined && /^\p{Lu}\p{Ll}+$/u.test(to), `${name} → ${to}`);
		assert.ok(!ownNames.has(to), `${name} → ${to}, a name of the book`);
	}
	assert.equal(new Set(map.values()).size, map.size, 'no two names given one');
	// What the lexicon says of each new name: a given name of the same gender, a surname, a city.
	const tags = (word: string) => [
		...(nlp(word).terms().json()[0] as { terms: { tags: string[] }[] }).terms[0]!.tags,
	];
	for (const p of own.people) {
		const got = tags(map.get(p.name)!);
		if (p.role === 'last') assert.ok(got.includes('LastName'), `${p.name} → ${map.get(p.name)}: ${got}`);
		else if (p.gender === 'female')
			assert.ok(got.includes('FemaleName'), `${p.name} → ${map.get(p.name)}: ${got}`);
		else if (p.gender === 'male')
			assert.ok(got.includes('MaleName'), `${p.name} → ${map.get(p.name)}: ${got}`);
		else assert.ok(got.includes('FirstName'), `${p.name} → ${map.get(p.name)}: ${got}`);
	}
	for (const place of own.places)
		assert.ok(tags(map.get(place)!).includes('City'), `${place} → ${map.get(place)}`);
	// Renamed through substituteNames, a sentence of the book keeps none of its names.
	const renamed = substituteNames('Victor left Geneva for Ingolstadt; Elizabeth wrote to Clerval.', map);
	assert.deepEqual(namesIn(renamed, allNames(own)), []);
	assert.equal(
		renamed,
		`${map.get('Victor')} left ${map.get('Geneva')} for ${map.get('Ingolstadt')}; ${map.get('Elizabeth')} wrote to ${map.get('Clerval')}.`,
	);
});

test('properNames still gives the stems of words capitalized inside sentences', () => {
	assert.deepEqual([...properNames('Then Victor saw Elizabeth. The creature fled from Victor.')].sort(), [
		'elizabeth',
		'victor',
	]);
});
