import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HIDE_CURSOR = '\x1b[?25l';

/** An edit in the editor the user chose: the text edited, or null when it was left as it was (ui/screens/run/Screen.tsx's `ExternalEditor`). */
export type ExternalEditor = ((text: string) => string | null) & { command: string };

/**
 * npm runs a script with EDITOR set to its own `editor` setting, which is EDITOR, else VISUAL, else
 * vi. Under `npm start` an EDITOR of vi is therefore npm's default, not a choice the user made.
 */
const NPM_DEFAULT_EDITOR = 'vi';

/**
 * The editor command `e` runs, or null for the in-app editor. BOOOOK_EDITOR decides when it is set
 * (set and empty: the in-app editor); then VISUAL, then EDITOR, as git reads them; an EDITOR of vi
 * inside an npm script is npm's default and does not count.
 */
export function editorCommand(env: NodeJS.ProcessEnv): string | null {
	if (env.BOOOOK_EDITOR !== undefined) return env.BOOOOK_EDITOR.trim() || null;
	const visual = env.VISUAL?.trim();
	if (visual) return visual;
	const editor = env.EDITOR?.trim();
	if (!editor) return null;
	const npmDefault = env.npm_lifecycle_event !== undefined && editor === NPM_DEFAULT_EDITOR;
	return npmDefault ? null : editor;
}

/**
 * Editing in the editor the user chose (`editorCommand`), or null when there is none (the app then
 * uses its own editor). The text is written to a private temporary file and the editor runs
 * through the shell, so an EDITOR with arguments ("code --wait", "vim -u NONE") works; the file name is passed as "$1", never spliced
 * into the command.
 *
 * The editor runs synchronously: while it has the terminal, this process's event loop reads
 * nothing from it (an asynchronous child would race Ink for the keys). Ink has already released
 * stdin (raw mode off) when this is called; the run screen has stopped drawing. The navigator hands
 * the screen this function, which never touches the file or the process itself.
 */
export function externalEditorFrom(
	env: NodeJS.ProcessEnv,
	stdout: NodeJS.WriteStream = process.stdout,
): ExternalEditor | null {
	const command = editorCommand(env);
	if (!command) return null;
	const edit = (text: string): string | null => {
		const dir = mkdtempSync(join(tmpdir(), 'booook-edit-'));
		const file = join(dir, 'node.txt');
		try {
			writeFileSync(file, text, { encoding: 'utf8', mode: 0o600 });
			const result = spawnSync('/bin/sh', ['-c', `${command} "$1"`, 'booook-edit', file], {
				stdio: 'inherit',
				env,
			});
			if (result.error) throw result.error;
			if (result.status !== 0) throw new Error(`${command} exited with ${result.status ?? result.signal}`);
			const edited = readFileSync(file, 'utf8');
			// Editors add a final newline; it is not part of the summary.
			const trimmed = edited.replace(/\n$/u, '');
			return trimmed === text ? null : trimmed;
		} finally {
			rmSync(dir, { recursive: true, force: true });
			// Editors leave the cursor visible; Ink hides it once, at its start.
			if (stdout.isTTY) stdout.write(HIDE_CURSOR);
		}
	};
	return Object.assign(edit, { command });
}
