#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (which `npm install` builds: bin/build.js) when it was built
// from exactly the files now in source/; otherwise the TypeScript sources through tsx. So an edited
// source runs at once, compiled on the fly, and a fresh clone needs no step besides `npm install`.
// BOOOOK_FROM_SOURCE=1 always runs the sources.
import { readFileSync } from 'node:fs';
import { sourceStamp, STAMP_FILE } from './build-stamp.js';

// React's development build costs about a third more CPU per frame; tests set NODE_ENV themselves.
process.env.NODE_ENV ??= 'production';

const root = new URL('../', import.meta.url);

/** The stamp of the build in dist/, or null when there is none. */
function builtStamp() {
	try {
		return readFileSync(new URL(`dist/${STAMP_FILE}`, root), 'utf8').trim();
	} catch {
		return null;
	}
}

const stamp = process.env.BOOOOK_FROM_SOURCE === '1' ? null : builtStamp();
if (stamp !== null && stamp === sourceStamp(root)) {
	await import('../dist/cli.js');
} else {
	const { register } = await import('tsx/esm/api');
	register();
	await import('../source/cli.tsx');
}
