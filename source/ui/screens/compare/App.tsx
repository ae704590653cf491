import { render } from 'ink';
import { CompareWalk, openComparison, type CompareTarget } from '../../../app/compare.ts';
import type { Streams } from '../../../app/services.ts';
import { Root } from '../../root.tsx';
import { CompareScreen } from './Screen.tsx';

/** A comparison's walk asked for, by `booook compare` or the home screen's C; the edge words its hint. */
export interface ComparisonAsked {
	target: CompareTarget;
	annotator: string;
	/** The command that prints the results, which the walk's last page names. */
	reportHint(name: string): string;
	/** How booook was started: the screen says command lines with it. */
	program: string;
}

/** How far the annotator got over the comparison `name`: `judged` of their `total` pairs, all saved. */
export interface WalkedComparison {
	name: string;
	judged: number;
	total: number;
}

/** The comparison (made the first time) and the annotator's walk over its pairs, until they leave it. */
export async function walkComparison(
	dir: string,
	asked: ComparisonAsked,
	streams: Streams,
): Promise<WalkedComparison> {
	const store = await openComparison(dir, asked.target);
	const name = store.definition.name;
	try {
		const walk = new CompareWalk(store, asked.annotator);
		const app = render(
			<Root program={asked.program}>
				<CompareScreen walk={walk} reportHint={asked.reportHint(name)} />
			</Root>,
			{
				stdin: streams.stdin ?? process.stdin,
				stdout: streams.stdout ?? process.stdout,
				exitOnCtrlC: false,
				patchConsole: false,
			},
		);
		await app.waitUntilExit();
		return { name, ...walk.progress() };
	} finally {
		await store.close();
	}
}
