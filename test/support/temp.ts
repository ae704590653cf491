import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, type TestContext } from 'node:test';

const made: string[] = [];

const remove = (dir: string) => rmSync(dir, { recursive: true, force: true });

// Each test file runs in its own process: once its tests are over, what they made goes.
after(() => {
	for (const dir of made.splice(0)) remove(dir);
});

/**
 * A new folder in the system's temp dir, removed once `t`'s test is over, or when the test file's
 * tests are done if no test is named; passed or failed alike.
 */
export function tempDir(name: string, t?: Pick<TestContext, 'after'>): string {
	const dir = mkdtempSync(join(tmpdir(), `booook-${name}-`));
	if (t) t.after(() => remove(dir));
	else made.push(dir);
	return dir;
}
