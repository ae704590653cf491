import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

const made: string[] = [];

// Each test file runs in its own process: once its tests are over, what they made goes.
after(() => {
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new folder in the system's temp dir, removed when the test file's tests are done. */
export function tempDir(name: string): string {
	const dir = mkdtempSync(join(tmpdir(), `booook-${name}-`));
	made.push(dir);
	return dir;
}
