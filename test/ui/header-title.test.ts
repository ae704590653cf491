import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runTitle } from '../../source/ui/components/Header.tsx';
import { textWidth } from '../../source/format/text.ts';

const offline = { title: 'Frankenstein', isLLM: false, provider: 'extractive', model: 'textrank' };
const llm = { title: 'Pride and Prejudice', isLLM: true, provider: 'anthropic', model: 'claude-sonnet-4-6' };

test('the run title fits its room whole at every width, and the baseline always says it is not an LLM', () => {
	for (const info of [offline, llm]) {
		for (const method of ['hier', 'inc'] as const) {
			for (let room = 10; room <= 120; room++) {
				const title = runTitle(info, method, room);
				assert.ok(textWidth(title) <= room, `${room}: ${title}`);
				// Wide enough for the shortest form, nothing is cut: the baseline's warning stays whole.
				if (room >= textWidth(`${info.title} · ${method} · extractive (not an LLM)`) && !info.isLLM)
					assert.match(title, /\(not an LLM\)$/u, `${room}: ${title}`);
			}
		}
	}
	// At 80 columns (less the state mark) the offline title keeps the method's name and the full warning.
	assert.equal(
		runTitle(offline, 'inc', 72),
		'booook · Frankenstein · incremental · extractive baseline (not an LLM)',
	);
	assert.equal(
		runTitle(offline, 'hier', 120),
		'booook · Frankenstein · hierarchical merging · extractive baseline (not an LLM)',
	);
	assert.equal(runTitle(llm, 'hier', 60), 'Pride and Prejudice · hier · anthropic claude-sonnet-4-6');
});
