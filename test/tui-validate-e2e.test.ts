import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Session } from '../source/store/session.ts';
import { BIN, booook } from './support/cli.ts';
import { tempDir } from './support/temp.ts';

const DATA = fileURLToPath(new URL('../../shared/data/booookscore/', import.meta.url));
const STUDY = join(DATA, 'human_annotations/annotations-gpt4-4096-inc.json');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;

// Its own tmux server: a running server's environment would leak in, and CI=true makes Ink print
// only the last frame.
const SOCKET = `booook-validate-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const capture = (name: string) => tmux('capture-pane', '-p', '-t', name);

async function waitFor(name: string, pattern: RegExp, what: string): Promise<string> {
	let screen = '';
	for (let i = 0; i < 300; i++) {
		try {
			screen = capture(name);
		} catch {
			screen = '';
		}
		if (pattern.test(screen)) return screen;
		await new Promise((r) => setTimeout(r, 100));
	}
	throw new Error(`waiting for ${what}: ${pattern} never appeared; the screen was:\n${screen}`);
}

/** Presses a key and waits until the screen has changed (each verdict is saved before the next key). */
async function press(name: string, key: string): Promise<void> {
	const before = capture(name);
	tmux('send-keys', '-t', name, key);
	for (let i = 0; i < 100 && capture(name) === before; i++) await new Promise((r) => setTimeout(r, 50));
}

function start(name: string, dir: string): void {
	const command = [process.execPath, BIN, 'validate', 'study', '--sessions-dir', dir, '--validator', 'e2e', '--mode', 'sample', '--fraction', '0.005', '--seed', '7'].map((a) => `'${a}'`).join(' ');
	// The shell stays after the app exits, so the exit line can be read from the pane.
	tmux('new-session', '-d', '-s', name, '-x', '110', '-y', '32', `env -u CI -u CONTINUOUS_INTEGRATION ${command}; echo "EXITED $?"; sleep 60`);
}

test('validate in a real terminal: judge some, quit, come back, finish, and report', { skip: hasTmux ? false : 'tmux is not installed (CI installs it)' }, async (t) => {
	const dir = tempDir('validate-e2e');
	assert.equal((await booook(['import', 'booookscore', '--validation', STUDY, '--session', 'study', '--sessions-dir', dir])).code, 0);
	const name = `booook-validate-${process.pid}`;
	t.after(() => spawnSync('tmux', ['-L', SOCKET, 'kill-server']));

	start(name, dir);
	const first = await waitFor(name, /annotation 1\/(\d+)/, 'the first annotation');
	const total = Number(/annotation 1\/(\d+)/.exec(first)![1]);
	assert.equal(total, Math.round(1437 * 0.005));
	await press(name, 'a');
	await press(name, 'd');
	await waitFor(name, /annotation 3\//, 'the walk to move on');
	tmux('send-keys', '-t', name, 'q');
	await waitFor(name, /EXITED 0/, 'the app to quit');
	assert.match(capture(name), new RegExp(`e2e: 2/${total} judged, all saved`));
	spawnSync('tmux', ['-L', SOCKET, 'kill-session', '-t', name]);

	start(name, dir);
	// The walk reopens where it was left: at its first unjudged item, the two verdicts from before kept.
	await waitFor(name, /annotation 3\//, 'the walk to reopen at its first unjudged item');
	// Back to the first item, and a note typed as fast as tmux sends it, keys of the walk's own among its letters.
	await press(name, 'Left');
	await press(name, 'Left');
	await waitFor(name, /annotation 1\/.*\n(?:.*\n)*.*your verdict: agree/, 'the first item again');
	const note = 'quit? no: a partial undo, a handy note!!';
	assert.equal(note.length, 40);
	tmux('send-keys', '-t', name, 'm', note, 'Enter');
	await waitFor(name, /note saved/, 'the note to be saved');
	await press(name, 'n');
	await waitFor(name, /annotation 3\//, 'n to reach the first unjudged item');
	for (let i = 2; i < total; i++) await press(name, 'a');
	await waitFor(name, /model \d+\/\d+ .*human \d+\/\d+|human \d+\/\d+|model \d+\/\d+/, 'progress');
	tmux('send-keys', '-t', name, 'q');
	await waitFor(name, /EXITED 0/, 'the app to quit');
	assert.match(capture(name), new RegExp(`e2e: ${total}/${total} judged`));

	const { data } = await Session.snapshot(dir, 'study');
	assert.deepEqual(data.judgments.filter((j) => j.validator === 'e2e' && j.note !== null).map((j) => [j.verdict, j.note]), [['agree', note]]);

	const report = JSON.parse((await booook(['report', 'study', '--sessions-dir', dir, '--json'])).stdout);
	const mine = report.precision.e2e;
	const judged = (mine.human?.n ?? 0) + (mine.model?.n ?? 0);
	assert.equal(judged, total);
	const disagreed = (mine.human?.disagree ?? 0) + (mine.model?.disagree ?? 0);
	assert.equal(disagreed, 1);
	const pair = report.agreement.pairs.find((p: { validators: string[] }) => p.validators.includes('e2e'));
	assert.equal(pair.n, total, 'agreement with the released verdicts over the items both judged');
});
