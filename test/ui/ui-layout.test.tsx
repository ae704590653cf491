import { test } from 'node:test';
import assert from 'node:assert/strict';

// Colours are only written when the output looks like a colour terminal; force it before Ink (and
// its chalk) load, so that NO_COLOR is what removes them.
process.env.FORCE_COLOR = '1';
const { RunScreen } = await import('../../source/ui/screens/run/Screen.tsx');
const { ViewFeed } = await import('../../source/ui/state/view-feed.ts');
const { initialView } = await import('../../source/ui/state/view.ts');
const { textWidth } = await import('../../source/format/text.ts');
const { FakeModel } = await import('../support/fake-model.ts');
const { randomBook, setUp } = await import('../support/run-harness.ts');

const { renderScreen, resize, until } = await import('../support/screen.tsx');
const { COLOR, SGR, unstyled } = await import('../support/ansi.ts');

async function screen(method: 'hier' | 'inc', env: NodeJS.ProcessEnv) {
	const book = randomBook(11, 80);
	const { engine, run } = await setUp(
		book,
		{ method, chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		new FakeModel({ seed: 11 }),
	);
	assert.equal(await engine.start(), 'done');
	const store = new ViewFeed(initialView(run), { fps: 1000 });
	const r = renderScreen(
		<RunScreen
			controls={engine}
			feed={store}
			info={{
				session: 's',
				title: 'Layout',
				book,
				provider: 'openai',
				model: 'fake',
				isLLM: true,
				priced: true,
			}}
			start={() => {}}
			quit={() => {}}
		/>,
		env,
	);
	return { r };
}

test('colours mark states unless NO_COLOR is set; bold and inverse stay', async () => {
	const colored = await screen('hier', {});
	await until(
		() => colored.r.lastFrame(),
		(f) => COLOR.test(f),
		'a coloured frame',
	);
	colored.r.unmount();
	const plain = await screen('hier', { NO_COLOR: '1' });
	const frame = await until(
		() => plain.r.lastFrame(),
		(f) => f.includes('Layout'),
		'the first frame',
	);
	assert.doesNotMatch(frame, COLOR);
	assert.match(frame, SGR, 'styles other than colour are still drawn');
	plain.r.unmount();
});

for (const method of ['hier', 'inc'] as const) {
	test(`${method}: the frame fits 80×24 and re-lays out on resize, help included`, async () => {
		const { r } = await screen(method, { NO_COLOR: '1' });
		const frame = () => unstyled(r.lastFrame() ?? '');
		const fits = (f: string, columns: number, rows: number) => {
			const lines = f.split('\n');
			return lines.length < rows && lines.every((line) => textWidth(line) <= columns);
		};
		// The help screen's own heading tells it from the run screen.
		const help = (f: string) => f.includes('esc or ? closes');
		for (const [columns, rows] of [
			[80, 24],
			[120, 40],
			[60, 20],
			[80, 24],
		] as const) {
			resize(r, columns, rows);
			// A resize is drawn on the next frame: wait for one that fits, or fail with the last one.
			await until(frame, (f) => fits(f, columns, rows), `a frame that fits ${columns}×${rows}`);
			for (const open of [true, false]) {
				r.stdin.write('?');
				await until(
					frame,
					(f) => help(f) === open && fits(f, columns, rows),
					`${open ? 'the help' : 'the run screen again'} within ${columns}×${rows}`,
				);
			}
		}
		r.unmount();
	});
}
