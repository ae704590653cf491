import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Decimals are shown through format/ (format/number.ts, percent.ts, cost.ts, duration.ts): a
 * figure the screens and the headless output both print then reads the same in both, and a change
 * of how it reads is made once. So no `toFixed` or `toPrecision` is called outside format/. The
 * source is read with TypeScript's parser, so a comment or a string that names them does not count.
 */

const SOURCE = fileURLToPath(new URL('../../source/', import.meta.url));
const DECIMALS = new Set(['toFixed', 'toPrecision']);

function sourceFiles(dir = SOURCE): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return /\.tsx?$/u.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
	});
}

/** `file:line` of every call of toFixed or toPrecision in `path`. */
function decimalCalls(path: string, text = readFileSync(path, 'utf8')): string[] {
	const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
	const found: string[] = [];
	const visit = (node: ts.Node) => {
		if (
			ts.isCallExpression(node) &&
			ts.isPropertyAccessExpression(node.expression) &&
			DECIMALS.has(node.expression.name.text)
		) {
			const line = file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
			found.push(`${relative(SOURCE, path).split(sep).join('/')}:${line}`);
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return found;
}

test('the check finds a decimal made by hand, and not one named in a comment or a string', () => {
	const probe = join(SOURCE, 'probe.ts');
	assert.deepEqual(
		decimalCalls(
			probe,
			'const a = `${(x / 1000).toFixed(1)}s`;\n// x.toFixed(2)\nconst b = "y.toFixed(3)";\nconst c = n?.toPrecision(2);\n',
		),
		['probe.ts:1', 'probe.ts:4'],
	);
});

test('no decimal is made outside format/', () => {
	const files = sourceFiles().filter((f) => !relative(SOURCE, f).startsWith(`format${sep}`));
	assert.ok(files.length > 50, `found ${files.length} files under source/`);
	assert.deepEqual(
		files.flatMap((f) => decimalCalls(f)),
		[],
	);
});
