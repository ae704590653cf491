import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeApi, annotatingReply } from './support/fake-api.ts';

/**
 * The app in a real terminal: tmux runs `booook run` against the local fake API, and the test
 * types keys and reads the screen. A run streams, is paused, a node is edited in $EDITOR, the app
 * quits (exit 130, resume command printed), `booook resume` continues to the end, a node is re-run,
 * and the app quits with 0.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
// The run screen opens only once the CLI sends terminal runs to it.
const skip = !hasTmux ? 'tmux is not installed (CI installs it: apt-get install -y tmux)' : false;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a run in tmux: streams, pauses, edits in $EDITOR, quits, resumes, finishes, re-runs a node', { skip, timeout: 240_000 }, async () => {
	const api = await startFakeApi({ latencyMs: 150, chunkDelayMs: 15, respond: annotatingReply });
	const sessions = mkdtempSync(join(tmpdir(), 'booook-e2e-'));
	const socket = `booook-e2e-${process.pid}`;
	const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
	const screen = () => tmux('capture-pane', '-p', '-t', 'app');
	const history = () => tmux('capture-pane', '-p', '-S', '-', '-t', 'app');
	const keys = (...k: string[]) => tmux('send-keys', '-t', 'app', ...k);
	const waitFor = async (what: string, check: (s: string) => boolean, ms = 60_000) => {
		const end = Date.now() + ms;
		for (;;) {
			const s = screen();
			if (check(s)) return s;
			if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the screen:\n${s}`);
			await sleep(100);
		}
	};
	// A fresh tmux server on its own socket takes this environment, not a running server's. CI
	// (set by CI systems) would make Ink print only the last frame.
	const env = [
		'env', '-u', 'CI', '-u', 'CONTINUOUS_INTEGRATION',
		`OPENAI_API_KEY=e2e`, `BOOOOK_SESSIONS=${sessions}`, `EDITOR=sed -i s/^/EDITED_/`, 'TERM=xterm-256color',
	];
	const booook = (...args: string[]) => [...env, process.execPath, join(root, 'bin/booook.js'), ...args].map((a) => `'${a.replace(/'/gu, `'\\''`)}'`).join(' ');
	const book = join(root, '../shared/books/frankenstein.txt');
	const run = booook('run', book, '--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', api.openaiBaseUrl, '--method', 'hier', '--chunk-size', '1024', '--max-summary', '300', '--context-window', '2048', '--session', 'e2e');
	const resume = booook('resume', 'e2e', '--base-url', api.openaiBaseUrl);
	try {
		tmux('new-session', '-d', '-s', 'app', '-x', '100', '-y', '30', `${run}; echo "EXIT=$?"; ${resume}; echo "EXIT2=$?"; sleep 60`);
		await waitFor('text streaming', (s) => s.includes('▶ running') && /This is reply/u.test(s));
		keys('Space');
		await waitFor('paused', (s) => s.includes('paused'));
		keys('Left');
		await waitFor('a finished node selected', (s) => /· done · version 1 of 1/u.test(s));
		keys('e');
		// The message and the node's new version count can land in different frames: wait for both.
		let s = await waitFor('the edit saved', (x) => x.includes('Saved as a new version') && /version 2 of 2 \(edited\)/u.test(x));
		assert.match(s, /EDITED_This is reply/u);
		keys('q');
		s = await waitFor('the first run to end', (x) => /EXIT=\d+/u.test(x));
		assert.match(s, /EXIT=130/u);
		assert.match(s, /booook resume e2e/u);
		// `booook resume` opens the run screen again and runs to the end.
		s = await waitFor('the resumed run to finish', (x) => x.includes('✓ done'), 180_000);
		keys('f');
		keys('r');
		await waitFor('the re-run', (x) => x.includes('will be made again'));
		// Following the run selects the final summary: its new version is the re-run's.
		s = await waitFor('done again', (x) => x.includes('✓ done') && x.includes('version 2 of 2'), 60_000);
		// The final summary is printed above the live area, in the terminal's scrollback.
		assert.match(history(), /Final summary/u);
		// b: BooookScore of the final summary, sentence by sentence, against the same fake API.
		keys('b');
		s = await waitFor('every sentence annotated', (x) => {
			const m = /BooookScore · .* · (\d+)\/(\d+) sentences · (\d+\.\d)/u.exec(x);
			// The whole frame, not one caught mid-redraw: the legend is drawn below the summary.
			return m !== null && m[1] === m[2] && /✓ clear {2}✗ confusing/u.test(x);
		});
		keys('Escape');
		await waitFor('back on the run screen', (x) => x.includes('✓ done'));
		keys('q');
		s = await waitFor('the app to end', (x) => /EXIT2=\d+/u.test(x));
		assert.match(s, /EXIT2=0/u);
		const saved = JSON.parse(readFileSync(join(sessions, 'e2e', 'session.json'), 'utf8'));
		assert.equal(saved.run.status, 'done');
		assert.equal(saved.summaries.length, 1, 'the scored summary is pinned');
		assert.equal(saved.annotations.filter((a: { source: string }) => a.source === 'model').length > 0, true);
		assert.ok(saved.run.nodes.some((n: { versions: { origin: string; text: string }[] }) => n.versions.some((v) => v.origin === 'edit' && v.text.startsWith('EDITED_'))), 'the edit is in the session');
	} finally {
		spawnSync('tmux', ['-L', socket, 'kill-server']);
		await api.close();
		rmSync(sessions, { recursive: true, force: true });
	}
});
