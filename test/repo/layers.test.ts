import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The shape of source/ (docs/architecture.md, "Layers"): data flows down. A file may import from its own layer
 * and from the layers below it, never from one above; and no chain of imports comes back to where
 * it started. Type-only imports count too: a layer that names a higher layer's types knows of it.
 */
const LAYERS: readonly { layer: string; holds: readonly string[] }[] = [
	// The domain model's names, the error types every layer throws and the command lines they print.
	{ layer: 'base', holds: ['domain.ts', 'errors.ts', 'program.ts'] },
	// Tokens, sentences, chunks, n-grams.
	{ layer: 'text', holds: ['text/'] },
	// How things are shown, by the headless output and the screens alike: numbers, text cut and
	// wrapped to a width, tables, progress lines. Above text/ for its sanitizing.
	{ layer: 'format', holds: ['format/'] },
	// The paper's two methods as plans, BooookScore, a summary's evidence in its book, a study's
	// grid and results table, and memory probes: pure functions of their inputs.
	{ layer: 'core', holds: ['summarize/', 'score/', 'evidence/', 'study/', 'memory/'] },
	// What comes from outside: model APIs, book files, prompt files, the run's settings as given.
	{ layer: 'inputs', holds: ['llm/', 'book/', 'prompts/', 'config.ts'] },
	// Sessions on disk.
	{ layer: 'store', holds: ['store/'] },
	// Runs a plan (or an annotation) with a provider, writing to a store; reports events.
	{ layer: 'engine', holds: ['engine/'] },
	// The use-cases (run, plan, score, validate, faithfulness, study, report, import, precision): each
	// builds its model client, engine or annotator and session; commands and screens call them.
	{ layer: 'app', holds: ['app/'] },
	// Screens: read engine and store state, send intents (to the engine, the annotator, app/'s walks).
	{ layer: 'ui', holds: ['ui/'] },
	// One file per sub-command: its spec, its call into app/, and its printing; and what they share to print.
	{ layer: 'commands', holds: ['commands/'] },
	// argv -> one command.
	{ layer: 'cli', holds: ['cli.tsx'] },
];

/** Node modules that read or write files, start processes or talk to the network. */
const IO_MODULES = [
	'node:fs',
	'node:fs/promises',
	'node:child_process',
	'node:net',
	'node:http',
	'node:https',
	'node:dgram',
	'node:worker_threads',
];
/**
 * Layers that never do I/O: the pure core, how things are shown, and the screens, which draw through Ink and leave files
 * and processes to the commands. (text/ reads its tokenizer's and word list's data from their
 * packages as it loads, so it is not listed.)
 */
const NO_IO = ['base', 'format', 'core', 'ui'];

const SOURCE = fileURLToPath(new URL('../../source/', import.meta.url));

interface Import {
	/** The imported file, relative to source/ (with `/`), or the package or node: module named. */
	target: string;
	relative: boolean;
	/** `import x from`, `export ... from`; `import(...)` called; `import('...')` in a type. */
	how: 'static' | 'dynamic' | 'type';
	/** Names only types (`import type`, `export type`, every name marked `type`, or an `import('...')` type). */
	typeOnly: boolean;
	line: number;
}

function sourceFiles(dir = SOURCE): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return /\.tsx?$/u.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
	});
}

const id = (path: string) => relative(SOURCE, path).split(sep).join('/');

/** Every module a file names: static imports and re-exports, `import(...)` calls and `import('...')` types. */
function importsOf(path: string): Import[] {
	const text = readFileSync(path, 'utf8');
	const file = ts.createSourceFile(
		path,
		text,
		ts.ScriptTarget.Latest,
		true,
		path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
	);
	const found: Import[] = [];
	const add = (specifier: ts.Node, how: Import['how'], typeOnly = how === 'type') => {
		const line = file.getLineAndCharacterOfPosition(specifier.getStart()).line + 1;
		if (!ts.isStringLiteralLike(specifier))
			assert.fail(
				`${id(path)}:${line}: an import whose module is computed cannot be checked; name it literally`,
			);
		const name = specifier.text;
		const rel = name.startsWith('.');
		found.push({ target: rel ? id(resolve(dirname(path), name)) : name, relative: rel, how, typeOnly, line });
	};
	const visit = (node: ts.Node) => {
		if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, 'static', importsTypesOnly(node));
		else if (ts.isExportDeclaration(node) && node.moduleSpecifier)
			add(node.moduleSpecifier, 'static', node.isTypeOnly);
		else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
			add(node.arguments[0]!, 'dynamic');
		else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
			add(node.argument.literal, 'type');
		ts.forEachChild(node, visit);
	};
	visit(file);
	return found;
}

/** `import type { A }`, or `import { type A, type B }`: nothing of the module is loaded. */
function importsTypesOnly(node: ts.ImportDeclaration): boolean {
	const clause = node.importClause;
	if (!clause) return false;
	if (clause.isTypeOnly) return true;
	const named = clause.namedBindings;
	return (
		!clause.name &&
		named !== undefined &&
		ts.isNamedImports(named) &&
		named.elements.length > 0 &&
		named.elements.every((e) => e.isTypeOnly)
	);
}

function layerOf(file: string): number {
	// The longest matching entry decides, so a file can be named apart from its folder.
	let best = -1;
	let length = -1;
	LAYERS.forEach(({ holds }, i) => {
		for (const prefix of holds) {
			if ((file === prefix || (prefix.endsWith('/') && file.startsWith(prefix))) && prefix.length > length) {
				best = i;
				length = prefix.length;
			}
		}
	});
	return best;
}

const files = sourceFiles().map(id).sort();
const graph = new Map(files.map((f) => [f, importsOf(join(SOURCE, f))]));

test('every file of source/ is in a layer, and every relative import names a file', () => {
	assert.ok(files.length > 50, `found ${files.length} files under source/`);
	// The commands load their screens with import(): if those went unseen, so would a cycle through them.
	assert.ok(
		[...graph.values()].some((imports) => imports.some((i) => i.how === 'dynamic' && i.relative)),
		'no import() call found',
	);
	assert.deepEqual(
		files.filter((f) => layerOf(f) < 0),
		[],
		'files in no layer: add them to LAYERS',
	);
	const missing = [...graph].flatMap(([from, imports]) =>
		imports
			.filter((i) => i.relative && !existsSync(join(SOURCE, i.target)))
			.map((i) => `${from}:${i.line} -> ${i.target}`),
	);
	assert.deepEqual(missing, []);
});

test('no file imports from a higher layer', () => {
	const upward = [...graph].flatMap(([from, imports]) =>
		imports
			.filter((i) => i.relative && layerOf(i.target) > layerOf(from))
			.map(
				(i) =>
					`${from}:${i.line} (${LAYERS[layerOf(from)]!.layer}) imports ${i.target} (${LAYERS[layerOf(i.target)]!.layer})`,
			),
	);
	assert.deepEqual(upward, []);
});

test('the pure core and the screens do no I/O of their own', () => {
	const io = [...graph].flatMap(([from, imports]) =>
		NO_IO.includes(LAYERS[layerOf(from)]!.layer)
			? imports
					.filter((i) => IO_MODULES.includes(i.target.replace(/^(?!node:)/u, 'node:')))
					.map((i) => `${from}:${i.line} imports ${i.target}`)
			: [],
	);
	assert.deepEqual(io, []);
});

/** The calls of a function named `name` in a source file, as `file:line`. */
function callsOf(file: string, name: string): string[] {
	const text = readFileSync(join(SOURCE, file), 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const calls: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === name)
			calls.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
		ts.forEachChild(node, visit);
	};
	visit(source);
	return calls;
}

test('below the screens, no layer says a command line: it names the command as data (program.ts `next`), and the edge says it as booook was started', () => {
	const ui = LAYERS.findIndex((l) => l.layer === 'ui');
	const below = files.filter((f) => f !== 'program.ts' && layerOf(f) < ui);
	assert.deepEqual(
		below.flatMap((f) => callsOf(f, 'commandLine')),
		[],
		'a message names its command with next() inside said`...`; commands/ and the screens say it',
	);
});

/**
 * The string literals and template texts of a source file that name a flag (`--session`), as
 * `file:line`, unless they are a flag named as data (program.ts `flag('--session')`) or the
 * arguments of a command named as data (`next('resume', '--sessions-dir DIR')`).
 */
function flagWordsOf(file: string): string[] {
	const text = readFileSync(join(SOURCE, file), 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const asData = (node: ts.Node): boolean => {
		let at = node;
		while (ts.isTemplateSpan(at.parent) || ts.isTemplateExpression(at.parent)) at = at.parent;
		const call = at.parent;
		return (
			ts.isCallExpression(call) &&
			ts.isIdentifier(call.expression) &&
			['flag', 'next'].includes(call.expression.text) &&
			call.arguments.some((a) => a === at)
		);
	};
	const visit = (node: ts.Node): void => {
		if (
			(ts.isStringLiteral(node) ||
				ts.isNoSubstitutionTemplateLiteral(node) ||
				ts.isTemplateLiteralToken(node)) &&
			/--[a-z][a-z-]+/u.test(node.text) &&
			!asData(node)
		)
			found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

/**
 * Files of app/, store/, engine/ and llm/ whose messages still write a flag out, with how many such
 * texts each holds. The list may only shrink: a flag a message names is data (`flag('--session')`
 * inside said`...`), which the edge says. Those left are the model clients' failures
 * (`ProviderError`, `RateLimitRefusal`), whose message is a string the engine logs and the session keeps.
 */
const FLAG_WORDS_ALLOWED: Readonly<Record<string, number>> = {
	'llm/base-url.ts': 1,
	'llm/extractive.ts': 1,
	'llm/rate-limit.ts': 5,
	'llm/sdk-errors.ts': 2,
};

test('app/, store/, engine/ and llm/ name a flag in a message as data (program.ts `flag`), never as words (an allow-list that only shrinks)', () => {
	const counts: Record<string, number> = {};
	for (const file of files.filter((f) => /^(app|store|engine|llm)\//u.test(f)))
		for (const at of flagWordsOf(file)) {
			const name = at.slice(0, at.indexOf(':'));
			counts[name] = (counts[name] ?? 0) + 1;
		}
	const over = Object.entries(counts).filter(([file, n]) => n > (FLAG_WORDS_ALLOWED[file] ?? 0));
	assert.deepEqual(over, [], 'a message writes a flag out: name it with flag() inside said`...`');
	assert.deepEqual(
		counts,
		FLAG_WORDS_ALLOWED,
		'fewer flags written out now: lower FLAG_WORDS_ALLOWED to match',
	);
});

test("the commands a message can name (program.ts CommandName) are cli.tsx's commands", () => {
	const cli = readFileSync(join(SOURCE, 'cli.tsx'), 'utf8');
	const commands = [...cli.matchAll(/^\t([a-z]+): \(\) => import\('\.\/commands\//gmu)].map((m) => m[1]);
	const program = readFileSync(join(SOURCE, 'program.ts'), 'utf8');
	const union = /export type CommandName =([^;]*);/u.exec(program)?.[1] ?? '';
	const named = [...union.matchAll(/'([a-z]+)'/gu)].map((m) => m[1]);
	assert.ok(commands.length > 10, 'cli.tsx lists its commands');
	assert.deepEqual([...named].sort(), [...commands].sort());
});

test('program.ts keeps no state: how booook was started is given to what says a command line, never set in a module', () => {
	const text = readFileSync(join(SOURCE, 'program.ts'), 'utf8');
	const source = ts.createSourceFile('program.ts', text, ts.ScriptTarget.Latest, true);
	const mutable = source.statements
		.filter(ts.isVariableStatement)
		.filter((s) => (s.declarationList.flags & ts.NodeFlags.Const) === 0)
		.map((s) => s.getText(source));
	assert.deepEqual(mutable, []);
});

test('no import cycle', () => {
	// Tarjan's strongly connected components: any component of more than one file (or a file that
	// imports itself) is a cycle.
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const cycles: string[][] = [];
	const connect = (file: string) => {
		index.set(file, index.size);
		low.set(file, index.get(file)!);
		stack.push(file);
		onStack.add(file);
		for (const { target } of (graph.get(file) ?? []).filter((i) => i.relative && graph.has(i.target))) {
			if (!index.has(target)) {
				connect(target);
				low.set(file, Math.min(low.get(file)!, low.get(target)!));
			} else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
		}
		if (low.get(file) !== index.get(file)) return;
		const component: string[] = [];
		let top: string;
		do {
			top = stack.pop()!;
			onStack.delete(top);
			component.push(top);
		} while (top !== file);
		if (component.length > 1 || graph.get(file)!.some((i) => i.target === file))
			cycles.push(component.sort());
	};
	for (const file of files) if (!index.has(file)) connect(file);
	assert.deepEqual(cycles, []);
});

test('no command imports another command: what two commands share lives in app/, or in a commands/ file that is no command', () => {
	// A command is a file of commands/ that declares its sub-command (its `spec`).
	const isCommand = (f: string) =>
		f.startsWith('commands/') && /^export const spec\b/mu.test(readFileSync(join(SOURCE, f), 'utf8'));
	const crossing = [...graph].flatMap(([from, imports]) =>
		from.startsWith('commands/')
			? imports
					.filter((i) => i.relative && i.target !== from && isCommand(i.target))
					.map((i) => `${from}:${i.line} -> ${i.target}`)
			: [],
	);
	assert.ok(files.filter(isCommand).length >= 10, 'the commands are found by their spec');
	assert.deepEqual(crossing, []);
});

test('docs/architecture.md states the layers this test checks, in the same order', () => {
	const doc = readFileSync(fileURLToPath(new URL('../../docs/architecture.md', import.meta.url)), 'utf8');
	// The map ends with the layer line: groups joined by "<", lowest first, its items by ",".
	const line = /^domain\.ts[^`]*?cli\.tsx\./mu.exec(doc);
	assert.ok(line, 'docs/architecture.md has its layer line ("domain.ts, ... < cli.tsx.")');
	const stated = line[0]
		.replace(/\.$/u, '')
		.split('<')
		.map((group) => group.split(',').map((item) => item.trim()));
	assert.deepEqual(
		stated,
		LAYERS.map((l) => [...l.holds]),
	);
	// And every folder of source/ has its entry in the map.
	for (const entry of readdirSync(SOURCE, { withFileTypes: true }))
		if (entry.isDirectory())
			assert.match(doc, new RegExp(`^  ${entry.name}/ `, 'mu'), `source/${entry.name}/ is in the map`);
});

/**
 * What commands/ may import: app/'s use cases, format/'s wording of numbers, the screens' entry
 * points, and the base files; the types of any layer below. Anything else is work a command does
 * itself that belongs to a use case (docs/architecture.md, "Where to start").
 */
function commandMayImport(from: string, target: string): boolean {
	return (
		// The output module is the one gate of every command's text to the terminal: it alone makes
		// untrusted text safe, so no command can forget to, and the others take that from it.
		(from === 'commands/output.ts' && target === 'text/sanitize.ts') ||
		target.startsWith('commands/') ||
		target.startsWith('app/') ||
		target.startsWith('format/') ||
		['domain.ts', 'errors.ts', 'program.ts', 'config.ts'].includes(target) ||
		['ui/app.tsx', 'ui/root.tsx', 'ui/navigator.tsx'].includes(target) ||
		/^ui\/screens\/[^/]+\/(Screen|App)\.tsx$/u.test(target)
	);
}

/**
 * Today's imports of commands/ that commandMayImport refuses, as `from -> target`. The list may only
 * shrink: an import added to it is a command doing a use case's work, and an entry whose import is
 * gone must be struck off, so the list stays what the code is.
 */
const COMMAND_IMPORTS_ALLOWED: readonly string[] = [];

test("commands/ imports only app/, format/, the screens' entry points, types and the base files (an allow-list that only shrinks)", () => {
	const offending = new Set(
		[...graph].flatMap(([from, imports]) =>
			from.startsWith('commands/')
				? imports
						.filter((i) => i.relative && !i.typeOnly && !commandMayImport(from, i.target))
						.map((i) => `${from} -> ${i.target}`)
				: [],
		),
	);
	assert.deepEqual(
		[...offending].filter((o) => !COMMAND_IMPORTS_ALLOWED.includes(o)).sort(),
		[],
		'commands/ imports a lower layer: move the work into app/ (or import only its types)',
	);
	assert.deepEqual(
		COMMAND_IMPORTS_ALLOWED.filter((o) => !offending.has(o)),
		[],
		'imports no longer in the code: strike them off COMMAND_IMPORTS_ALLOWED',
	);
});
