import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/** The commands whose options docs/cli.md lists in its table "Options of the other commands". */
const COMMANDS = [
	'resume',
	'sessions',
	'show',
	'export',
	'score',
	'import',
	'precision',
	'validate',
	'report',
	'evidence',
	'coverage',
	'memory',
	'faithfulness',
	'study',
] as const;

test("docs/cli.md's table names every option each command takes", async () => {
	const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8').split('\n');
	for (const name of COMMANDS) {
		const { spec } = (await import(`../../source/commands/${name}.ts`)) as {
			spec: (exit: (code: number) => void) => CommandUnknownOpts;
		};
		// A command may have a row per form (`import booookscore`, `import summary`).
		const rows = doc.filter((l) => l.startsWith(`| \`${name} `) || l.startsWith(`| \`${name}\``)).join(' ');
		assert.notEqual(rows, '', `docs/cli.md has no row for ${name}`);
		const missing = spec(() => {})
			.options.map((o) => o.long)
			.filter((flag): flag is string => flag !== undefined && !rows.includes(`\`${flag}`));
		assert.deepEqual(missing, [], `${name}'s row in docs/cli.md`);
	}
});
