import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Every count printed with its noun goes through counted() (source/format/count.ts): a plural
 * written by hand after a number reads "1 calls" when the number is 1. The source's template
 * strings are read with TypeScript's parser (no type checking: a few hundred milliseconds), and two
 * shapes are refused: a number followed by a plural noun (`${n} calls`, `${n} input tokens`), and a
 * plural made by hand from the number (`${n} call${n === 1 ? '' : 's'}`, `${n} ${n === 1 ? 'cell' : 'cells'}`).
 * Not refused: a fraction (`${done}/${planned} calls`, whose noun counts the total), a diff's
 * `+${added} −${dropped} sentences`, a decimal (`${x.toFixed(1)} points`), and a noun whose form
 * depends on a list rather than a number printed beside it (`from chunk${s} 1–3`).
 */

const SOURCE = fileURLToPath(new URL('../../source/', import.meta.url));

/** Nouns the app counts, in their plural: what follows a number in a line booook prints. */
const NOUNS = [
	'answers',
	'annotations',
	'attempts',
	'batches',
	'books',
	'calls',
	'cells',
	'chapters',
	'characters',
	'chars',
	'chunks',
	'claims',
	'columns',
	'errors',
	'fields',
	'files',
	'items',
	'judgments',
	'levels',
	'lines',
	'merges',
	'minutes',
	'nodes',
	'notes',
	'paragraphs',
	'passages',
	'probes',
	'questions',
	'refusals',
	'requests',
	'retries',
	'rows',
	'runs',
	'saves',
	'scenes',
	'seconds',
	'sentences',
	'sessions',
	'slots',
	'steps',
	'summaries',
	'texts',
	'tokens',
	'units',
	'validators',
	'values',
	'vectors',
	'verdicts',
	'versions',
	'words',
];
/** Words that may stand between the number and its noun ("3 input tokens"). */
const ADJECTIVES = [
	'annotated',
	'best',
	'cached',
	'content',
	'control',
	'earlier',
	'final',
	'human',
	'input',
	'later',
	'output',
	'unreadable',
];
const COUNT_NOUN = new RegExp(`^ (?:(?:${ADJECTIVES.join('|')}) )?(?:${NOUNS.join('|')})\\b`, 'u');
/** Text before a number that makes it part of a fraction, a range or a signed change. */
const NOT_ALONE = /[/−–+-]$/u;
/** A number shown with decimals (format/number.ts' fixed() and the like): its noun is plural whatever it is. */
const DECIMAL = /\.toFixed\(|\bfixed\(|signedPoints\(|percent\(/u;

/** Whether the two branches are a noun's singular and plural endings ('' and 's', 'y' and 'ies', 'cell' and 'cells'). */
function pluralPair(a: string, b: string): boolean {
	const [one, many] = a.length <= b.length ? [a, b] : [b, a];
	return (
		(many === `${one}s` || many === `${one}es` || (one.endsWith('y') && many === `${one.slice(0, -1)}ies`)) &&
		/^[a-z]*$/u.test(many)
	);
}

/** The hand-written plurals of one file's source: where and what. */
export function handWrittenPlurals(file: string, text: string): string[] {
	const found: string[] = [];
	const source = ts.createSourceFile(
		file,
		text,
		ts.ScriptTarget.Latest,
		true,
		file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
	);
	const at = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
	const visit = (node: ts.Node): void => {
		if (ts.isTemplateExpression(node)) {
			node.templateSpans.forEach((span, i) => {
				const before = i === 0 ? node.head.text : node.templateSpans[i - 1]!.literal.text;
				const shown = span.expression.getText(source);
				if (
					COUNT_NOUN.test(span.literal.text) &&
					!NOT_ALONE.test(before) &&
					!DECIMAL.test(shown) &&
					!/^counted\(/u.test(shown) &&
					// A flag or a command named as data (program.ts) is words, not a count.
					!/^(flag|next)\(/u.test(shown)
				)
					found.push(`${at(span)}: \${${shown}}${COUNT_NOUN.exec(span.literal.text)![0]}`);
				const e = span.expression;
				if (
					i > 0 &&
					/^ ?[a-z]*$/u.test(before) &&
					ts.isConditionalExpression(e) &&
					ts.isBinaryExpression(e.condition) &&
					/^[!=]==$/u.test(e.condition.operatorToken.getText(source)) &&
					e.condition.right.getText(source) === '1' &&
					ts.isStringLiteral(e.whenTrue) &&
					ts.isStringLiteral(e.whenFalse) &&
					pluralPair(e.whenTrue.text, e.whenFalse.text)
				)
					found.push(`${at(span)}: ${before}\${${shown}}`);
			});
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

const files = (dir: string): string[] =>
	readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory()
			? files(join(dir, entry.name))
			: /\.tsx?$/u.test(entry.name)
				? [join(dir, entry.name)]
				: [],
	);

test('the detector finds the hand-written plurals it is meant to, and passes what is not one', () => {
	const sample = [
		'const a = `${n} calls`;',
		'const b = `${formatInt(n)} input tokens in`;',
		"const c = `${n} call${n === 1 ? '' : 's'}`;",
		"const d = `${n} summar${n !== 1 ? 'ies' : 'y'}`;",
		"const e = `${n} ${n === 1 ? 'cell' : 'cells'}`;",
		"const ok1 = `${counted(n, 'call')}`;",
		'const ok2 = `[${done}/${planned} calls]`;',
		'const ok3 = `${x.toFixed(1)} steps on average`;',
		'const ok3b = `${fixed(x, 1)} steps on average`;',
		"const ok4 = `from chunk${list.length === 1 ? '' : 's'} ${ranges}`;",
		"const ok5 = `${units(n)} ${n === 1 ? 'is' : 'are'} too few`;",
		'const ok6 = `+${added} −${dropped} sentences`;',
	].join('\n');
	assert.deepEqual(
		handWrittenPlurals('sample.ts', sample).map((f) => f.replace(/^sample\.ts:/u, '')),
		[
			'1: ${n} calls',
			'2: ${formatInt(n)} input tokens',
			"3:  call${n === 1 ? '' : 's'}",
			"4:  summar${n !== 1 ? 'ies' : 'y'}",
			"5:  ${n === 1 ? 'cell' : 'cells'}",
		],
	);
});

test('no line booook prints writes a plural by hand after a number: counts go through counted()', () => {
	const found = files(SOURCE)
		.filter((file) => !file.endsWith(join('format', 'count.ts')))
		.flatMap((file) => handWrittenPlurals(relative(SOURCE, file), readFileSync(file, 'utf8')));
	assert.deepEqual(
		found,
		[],
		`plurals written by hand (use counted() from source/format/count.ts):\n${found.join('\n')}`,
	);
});
