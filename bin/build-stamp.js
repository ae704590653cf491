// What dist/ was built from, as one hash: bin/booook.js runs dist/ only when this hash of the files
// on disk equals the one bin/build.js wrote, so an edited, added or deleted source file (or a changed
// build recipe) sends booook back to the sources at once, with no rebuild to remember. Contents are
// hashed rather than modification times compared: a checkout, copy or restore can move a time either
// way, and reading the ~110 small files costs about 3 ms.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The files a build reads, relative to the package root: every file under source/ and the build's settings. */
export function buildInputs(root) {
	const files = [];
	const walk = (dir) => {
		for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
			const path = `${dir}/${entry.name}`;
			if (entry.isDirectory()) walk(path);
			else files.push(path);
		}
	};
	walk('source');
	files.push('tsconfig.json', 'bin/build.js');
	return files.sort();
}

/** The hash of the build's inputs under `root` (a path or a file: URL of the package folder). */
export function sourceStamp(root) {
	const dir = typeof root === 'string' ? root : fileURLToPath(root);
	const hash = createHash('sha256');
	for (const file of buildInputs(dir)) {
		hash.update(`${file}\0`);
		hash.update(readFileSync(join(dir, file)));
		hash.update('\0');
	}
	return hash.digest('hex');
}

/** Where the build writes the hash of what it was built from. */
export const STAMP_FILE = 'build-stamp';
