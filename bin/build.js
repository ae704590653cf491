#!/usr/bin/env node
// Compiles source/ to JavaScript in dist/ so that booook starts without compiling TypeScript on
// every run; `npm install` and `npm ci` run it (the `prepare` script). bin/booook.js runs dist/
// only while its stamp matches the sources (bin/build-stamp.js), else the sources through tsx.
//
// Each file is compiled on its own, as tsx compiles it (the same esbuild, with tsconfig.json's
// settings), and dist/ mirrors source/ (source/prompts/load.ts -> dist/prompts/load.js): code that
// finds files from its own location (import.meta.url: ../package.json, ../../prompts, packages in
// node_modules) finds the same files from either folder. Nothing is bundled: modules load as lazily
// as in the sources.
//
// `--prepare`: a failed build warns and exits 0, since booook still runs (from the sources) and an
// install should not fail for it; run without it (`npm run build`), a failure exits 1.
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInputs, sourceStamp, STAMP_FILE } from './build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const prepare = process.argv.includes('--prepare');

try {
	const started = performance.now();
	// tsx's own esbuild, found the way tsx finds it, so no second copy is needed and the output is
	// what tsx would run.
	const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild');
	// Hashed before reading: a source edited during the build leaves a stamp that matches nothing.
	const stamp = sourceStamp(root);
	const entries = buildInputs(root).filter(
		(file) => /^source\/.*\.tsx?$/u.test(file) && !file.endsWith('.d.ts'),
	);
	// Without its stamp dist/ is never run, so a build cut short leaves the sources in charge.
	rmSync(dist, { recursive: true, force: true });
	await esbuild.build({
		absWorkingDir: root,
		entryPoints: entries,
		outbase: 'source',
		outdir: 'dist',
		// Bundling is on only so that every import passes through the plugin below; each one stays an
		// import (packages and node: modules are external, relative ones are renamed).
		bundle: true,
		packages: 'external',
		platform: 'node',
		format: 'esm',
		target: 'node20',
		tsconfig: 'tsconfig.json',
		logLevel: 'warning',
		plugins: [
			{
				name: 'relative-imports-to-js',
				setup(build) {
					build.onResolve({ filter: /^\.\.?\// }, (args) =>
						args.kind === 'entry-point'
							? undefined
							: { path: args.path.replace(/\.tsx?$/u, '.js'), external: true },
					);
				},
			},
		],
	});
	writeFileSync(join(dist, STAMP_FILE), `${stamp}\n`);
	console.log(
		`booook: compiled ${entries.length} files of source/ into dist/ in ${Math.round(performance.now() - started)} ms`,
	);
} catch (error) {
	rmSync(join(dist, STAMP_FILE), { force: true });
	const reason = error instanceof Error ? error.message : String(error);
	console.error(
		`booook: could not compile source/ into dist/ (${reason.split('\n')[0]}); booook runs from the TypeScript sources instead, which starts slower`,
	);
	if (!prepare) process.exitCode = 1;
}
