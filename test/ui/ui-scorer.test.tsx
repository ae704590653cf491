import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScorerChoice, ScorerQuestion } from '../../source/app/score-model.ts';
import { ScorerScreen } from '../../source/ui/screens/scorer/Screen.tsx';
import { textWidth } from '../../source/format/text.ts';
import { scorerQuestion } from '../../source/app/score-model.ts';
import type { Annotation } from '../../source/domain.ts';
import { Session, type BookSessionData } from '../../source/store/session.ts';
import { extractiveRun } from '../support/extractive-run.ts';
import { KEYS } from '../support/keys.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';
import { tempDir } from '../support/temp.ts';
import { renderScreen, resize, until } from '../support/screen.tsx';
import { next } from '../../source/program.ts';

const question: ScorerQuestion = {
	sentences: 37,
	provider: 'openai',
	models: { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-6' },
	baseUrls: { openai: 'http://env:8000/v1', anthropic: '' },
	command: next('score', 'base'),
};

function mount(start: (choice: ScorerChoice) => Promise<void>, last: ScorerChoice | null = null) {
	const seen = { back: 0, quit: 0 };
	const r = renderScreen(
		<ScorerScreen
			question={question}
			last={last}
			start={start}
			onBack={() => void seen.back++}
			onQuit={() => void seen.quit++}
		/>,
	);
	resize(r, 80, 24);
	const frame = () => r.lastFrame() ?? '';
	return { r, frame, seen, press: (key: string) => void r.stdin.write(key) };
}

const fits = (f: string) =>
	f.split('\n').length <= 24 && f.split('\n').every((line) => textWidth(line) <= 80);

test("the scoring question: the environment's model and server follow the provider until typed; a refusal stays under the fields, to be mended there", async () => {
	const chosen: ScorerChoice[] = [];
	let refusal: string | null =
		'annotating 37 sentences with anthropic/claude-x needs ANTHROPIC_API_KEY: export it';
	const { r, frame, seen, press } = mount(async (choice) => {
		chosen.push(choice);
		if (refusal) throw new Error(refusal);
	});
	let f = await until(frame, (x) => x.includes('which model annotates') && fits(x), 'the question at 80×24');
	assert.match(f, /37 sentences without a verdict/u);
	assert.match(f, /provider\s+‹ openai ›/u);
	assert.match(f, /base URL \(server\)\s+http:\/\/env:8000\/v1/u);
	press(KEYS.right);
	f = await until(frame, (x) => x.includes('claude-sonnet-4-6'), 'anthropic');
	assert.doesNotMatch(f, /env:8000/u, "anthropic's server is its own");
	press(KEYS.down);
	for (const _ of 'sonnet-4-6') press(KEYS.backspace);
	press('x');
	press(KEYS.enter);
	f = await until(frame, (x) => x.includes('needs ANTHROPIC_API_KEY'), 'the refusal');
	assert.ok(fits(f), f);
	assert.deepEqual(chosen, [{ provider: 'anthropic', model: 'claude-x', baseUrl: null }]);
	press(KEYS.down);
	press('nowhere');
	press(KEYS.enter);
	await until(
		frame,
		(x) => x.includes('The base URL "nowhere" is not a URL'),
		"a bad address, in the question's words",
	);
	assert.equal(chosen.length, 1, 'a bad address is not tried');
	for (const _ of 'nowhere') press(KEYS.backspace);
	press('http://127.0.0.1:9/v1');
	await until(
		frame,
		(x) => x.includes('--provider anthropic --model claude-x --base-url'),
		'the shell command',
	);
	refusal = null;
	press(KEYS.ctrlS);
	await until(
		() => String(chosen.length),
		(x) => x === '2',
		'the second try',
	);
	assert.deepEqual(chosen[1], { provider: 'anthropic', model: 'claude-x', baseUrl: 'http://127.0.0.1:9/v1' });
	press(KEYS.escape);
	await until(
		() => String(seen.back),
		(x) => x === '1',
		'back',
	);
	r.unmount();
});

test('the scoring question asked again starts from what was chosen', async () => {
	const { r, frame } = mount(async () => {}, {
		provider: 'anthropic',
		model: 'claude-x',
		baseUrl: 'http://127.0.0.1:9',
	});
	const f = await until(frame, (x) => x.includes('which model annotates'), 'the question');
	assert.match(f, /provider\s+‹ anthropic ›/u);
	assert.match(f, /model\s+claude-x/u);
	assert.match(f, /base URL \(server\)\s+http:\/\/127\.0\.0\.1:9/u);
	r.unmount();
});

test('the question is asked of an extractive run whose summary lacks verdicts, from the environment, and not once every sentence has one', async (t) => {
	const dir = tempDir('scorer-question', t);
	await extractiveRun(FRANKENSTEIN, dir, 'base');
	const session = (await Session.open(dir, 'base')) as Session<BookSessionData>;
	try {
		const env = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/v1' };
		const asked = scorerQuestion(session, env)!;
		assert.ok(asked.sentences > 0);
		assert.equal(asked.provider, 'anthropic', 'the one server named');
		assert.deepEqual(asked.baseUrls, { openai: '', anthropic: 'http://127.0.0.1:9/v1' });
		assert.equal(scorerQuestion(session, { OPENAI_API_KEY: 'k', ...env })!.provider, 'openai');
		const summary = await session.pinFinalSummary();
		const verdict = (sentence: number): Annotation => ({
			id: `a${sentence}`,
			summary,
			sentence,
			spans: [],
			confusing: false,
			questions: '',
			types: [],
			source: 'model',
			annotator: 'anthropic/claude-x',
			imported: null,
			raw: 'Questions: none\nTypes: none',
			failure: null,
			createdAt: new Date().toISOString(),
		});
		await session.append('annotations', verdict(0));
		assert.deepEqual(
			{ ...scorerQuestion(session, env)!, sentences: 0 },
			{ ...asked, sentences: 0, provider: 'anthropic', models: { ...asked.models, anthropic: 'claude-x' } },
			'a scoring cut short goes on with its model',
		);
		await session.append(
			'annotations',
			...Array.from({ length: asked.sentences - 1 }, (_, i) => verdict(i + 1)),
		);
		assert.equal(scorerQuestion(session, env), null, 'every sentence has a verdict');
	} finally {
		await session.close();
	}
});
