import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScoreControls, SentenceVerdict } from '../source/ui/controls.ts';
import { ScoreScreen } from '../source/ui/screens/ScoreScreen.tsx';
import { sentenceSpans } from '../source/text/sentences.ts';
import { renderScreen } from './support/screen.tsx';

const TEXT = 'Ann sails to Dover. A stranger \u001B]0;owned\u0007appears. The war ends.';
const tick = () => new Promise((r) => setTimeout(r, 40));

/** A scoring whose answers the test hands out one at a time. */
function fakeScoring() {
	const spans = sentenceSpans(TEXT);
	const verdicts: SentenceVerdict[] = spans.map(() => 'pending');
	const listeners = new Set<() => void>();
	const controls: ScoreControls = {
		book: 'voyage',
		text: TEXT,
		annotator: 'openai/test',
		sentences: () => spans.map((s, i) => ({ start: s.start, end: s.end, verdict: verdicts[i]!, questions: verdicts[i] === 'confusing' ? 'Who is the stranger?' : '', types: verdicts[i] === 'confusing' ? ['entity omission'] : [] })),
		score: () => {
			const answered = verdicts.filter((v) => v === 'clear' || v === 'confusing');
			return answered.length === 0 ? null : (100 * answered.filter((v) => v === 'clear').length) / answered.length;
		},
		status: () => `${verdicts.filter((v) => v !== 'pending').length} answered`,
		start: async () => {},
		cancel: () => {},
		onChange: (l) => {
			listeners.add(l);
			return () => listeners.delete(l);
		},
	};
	const answer = (i: number, v: SentenceVerdict) => {
		verdicts[i] = v;
		for (const l of listeners) l();
	};
	return { controls, answer };
}

test('the score screen marks each sentence as its answer arrives and shows the questions of confusing ones', async () => {
	const { controls, answer } = fakeScoring();
	let back = 0;
	const app = renderScreen(<ScoreScreen controls={controls} onBack={() => back++} onQuit={() => {}} />);
	await tick();
	assert.match(app.lastFrame()!, /0\/3 sentences · —/);
	assert.match(app.lastFrame()!, /···  ✓ clear/);
	answer(0, 'clear');
	await tick();
	assert.match(app.lastFrame()!, /1\/3 sentences · 100\.0/);
	answer(1, 'confusing');
	answer(2, 'failed');
	await tick();
	const frame = app.lastFrame()!;
	assert.match(frame, /✓✗\?  ✓ clear/);
	assert.match(frame, /3\/3 sentences · 50\.0/);
	assert.match(frame, /Questions: Who is the stranger\?/);
	assert.ok(!frame.includes('\u001B]0;'), 'a title-change sequence from the summary never reaches the frame');
	app.stdin.write('\u001B');
	await tick();
	assert.equal(back, 1);
	app.unmount();
});
