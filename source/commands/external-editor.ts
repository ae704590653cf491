import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExternalEditor } from '../ui/screens/RunScreen.tsx';

const HIDE_CURSOR = '\x1b[?25l';

/**
 * Editing in `$EDITOR`, or null when it is not set (the app then uses its own editor). The text is
 * written to a private temporary file and the editor runs through the shell, so an EDITOR with
 * arguments ("code --wait", "vim -u NONE") works; the file name is passed as "$1", never spliced
 * into the command.
 *
 * The editor runs synchronously: while it has the terminal, this process's event loop reads
 * nothing from it (an asynchronous child would race Ink for the keys). Ink has already released
 * stdin (raw mode off) when this is called; the run screen has stopped drawing. The screen is
 * handed this function and never touches the file or the process itself.
 */
export function externalEditorFrom(env: NodeJS.ProcessEnv, stdout: NodeJS.WriteStream = process.stdout): ExternalEditor | null {
	const command = env.EDITOR?.trim();
	if (!command) return null;
	return (text) => {
		const dir = mkdtempSync(join(tmpdir(), 'booook-edit-'));
		const file = join(dir, 'node.txt');
		try {
			writeFileSync(file, text, { encoding: 'utf8', mode: 0o600 });
			const result = spawnSync('/bin/sh', ['-c', `${command} "$1"`, 'booook-edit', file], { stdio: 'inherit', env });
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
}
