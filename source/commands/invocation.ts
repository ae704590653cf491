import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellWord } from '../program.ts';

/** booook's entry point (from source/ and from dist/ alike), which every way of starting it runs. */
const BIN = fileURLToPath(new URL('../../bin/booook.js', import.meta.url));

/**
 * The start of a command line that runs booook when pasted into the user's shell, in any folder (a
 * line is often pasted later, elsewhere): `booook` when it is on the PATH, else with the checkout's
 * absolute path.
 */
export function invocation(env: NodeJS.ProcessEnv, bin: string = BIN): string {
	const own = realOf(bin);
	if (own !== null && firstOnPath('booook', env.PATH) === own) return 'booook';
	return npmScript(env, bin) ?? `node ${shellWord(bin)}`;
}

/**
 * `npm --prefix ROOT start --` (or `run NAME`) when npm started this process through this
 * package's own script that runs bin/booook.js: `npm start` alone finds the package from the folder
 * it is typed in, and fails outside it. npm runs the script in ROOT wherever it is typed, so the
 * sessions folder it defaults to is the same.
 */
function npmScript(env: NodeJS.ProcessEnv, bin: string): string | null {
	const event = env.npm_lifecycle_event;
	if (!event || !env.npm_package_json || !/^node bin\/booook\.js(\s|$)/u.test(env.npm_lifecycle_script ?? ''))
		return null;
	const root = dirname(dirname(bin));
	if (realOf(env.npm_package_json) !== realOf(join(root, 'package.json'))) return null;
	const prefix = `npm --prefix ${shellWord(root)}`;
	return event === 'start' ? `${prefix} start --` : `${prefix} run ${shellWord(event)} --`;
}

/**
 * What a shell runs for `name`: the real path of the first executable of that name on PATH. The
 * node_modules/.bin folders npm puts first on a script's PATH are not the user's PATH.
 */
function firstOnPath(name: string, path: string | undefined): string | null {
	for (const dir of (path ?? '').split(delimiter)) {
		if (dir === '' || dir.endsWith(`node_modules${sep}.bin`)) continue;
		const file = join(dir, name);
		try {
			accessSync(file, constants.X_OK);
		} catch {
			continue;
		}
		return realOf(file);
	}
	return null;
}

function realOf(file: string): string | null {
	try {
		return realpathSync(file);
	} catch {
		return null;
	}
}
