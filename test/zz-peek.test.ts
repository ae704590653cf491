import { test } from 'node:test';
import { join } from 'node:path';
import { BIN } from './support/cli.ts';
import { tempDir } from './support/temp.ts';
import { shellLine, terminal } from './support/tmux.ts';
import { FRANKENSTEIN as book } from './support/repo-data.ts';
test('peek', { timeout: 180_000 }, async (t) => {
	const sessions = join(tempDir('home-peek', t), 'sessions');
	const env = ['env', '-u', 'BOOOOK_SESSIONS', 'OPENAI_API_KEY=', 'ANTHROPIC_API_KEY=', 'TERM=xterm-256color'];
	const first = shellLine([...env, process.execPath, BIN, 'run', book, '--provider', 'extractive', '--chunk-size', '4096', '--sessions-dir', sessions, '--session', 'one', '--step']);
	const home = shellLine([...env, process.execPath, BIN, '--sessions-dir', sessions]);
	const term = await terminal('peek', shellLine(['sh', '-c', `${first}; exec ${home}`]), { columns: 80, rows: 24 });
	try {
		await term.waitFor('stepping', (s) => s.includes('stepping'));
		term.keys('q');
		await term.waitFor('list', (s) => s.includes('saved sessions in') && s.includes('one'));
		term.keys('?');
		await term.waitFor('help', (s) => s.includes('Home (saved sessions)'));
		term.keys('?');
		await term.waitFor('list', (s) => !s.includes('Home (saved sessions)'));
		term.keys('Enter');
		await term.waitFor('run', (s) => s.includes('calls ·'));
		console.log('=== OPENED\n' + term.screen());
		term.keys('Space');
		await term.waitFor('done', (s) => s.includes('✓ done'), 60_000);
		await new Promise((r) => setTimeout(r, 1500));
		console.log('=== DONE\n' + term.screen());
		term.keys('Escape');
		await term.waitFor('list again', (s) => s.includes('saved sessions in') && !s.includes('calls ·'), 10_000).catch(() => {});
		await new Promise((r) => setTimeout(r, 1000));
		console.log('=== BACK\n' + term.screen());
		term.keys('q');
		await term.waitFor('end', (s) => /EXIT=\d+/u.test(s));
		console.log('=== HISTORY\n' + term.history().split('\n').slice(0, 80).join('\n'));
	} finally {
		term.close();
	}
});
