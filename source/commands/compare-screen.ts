import { sessionsDirArg } from '../config.ts';
import {
	CompareWalk,
	compareJudging,
	comparisonNameFor,
	openComparison,
	sameBookSessions,
	type CompareTarget,
} from '../app/compare.ts';
import { validatorName } from '../app/validation.ts';
import { badInput } from '../errors.ts';
import { usd } from '../format/cost.ts';
import { counted } from '../format/count.ts';
import type { AccountLimits } from '../llm/create.ts';
import { commandLine, next, said, shellWord } from '../program.ts';
import { printComparison } from './compare-results.ts';
import { cancelOnSignal } from './interrupt.ts';
import { output, type Stream } from './output.ts';

/** `booook compare` (and the home screen's C): the comparison's walk in the terminal, its model judge, its results printed. */

export interface CompareOptions extends CompareTarget {
	/** How booook was started, for the command lines printed. */
	program: string;
	annotator?: string;
	resamples: number;
	results: boolean;
	json: boolean;
	/** A model judges the pairs (`--model`), as named by these flags. */
	judge?: {
		provider?: string;
		model?: string;
		baseUrl?: string;
		concurrency?: number;
		prompts?: string;
		prices?: string;
		account?: AccountLimits;
	};
	env?: NodeJS.ProcessEnv;
	stdin?: NodeJS.ReadStream;
	stdout?: NodeJS.WriteStream;
	stderr?: Stream;
}

/** `booook compare`: the comparison made or found, then the walk in the terminal, or its results printed. */
export async function compareCommand(dir: string, opts: CompareOptions): Promise<number> {
	const stdin = opts.stdin ?? process.stdin;
	const stdout = opts.stdout ?? process.stdout;
	if (opts.judge) return judgeCommand(dir, opts, opts.judge);
	const walking = !opts.results && !opts.json;
	if (walking && (!stdin.isTTY || !stdout.isTTY))
		throw badInput(
			said`compare is interactive and needs a terminal; for the results of judgments made use: ${next('compare', '--name NAME --results')} (or --json)`,
		);
	// The results only read: a comparison not made yet is not made by asking for them.
	if (!walking) return printComparison(dir, await comparisonNameFor(opts), { ...opts, stdout });
	const annotator = validatorName(opts.annotator);
	const store = await openComparison(dir, opts);
	const name = store.definition.name;
	const results = commandLine(
		opts.program,
		`compare --name ${shellWord(name)} --results${sessionsDirArg(dir)}`,
	);
	try {
		const walk = new CompareWalk(store, annotator);
		const [{ render }, { createElement }, { Root }, { CompareScreen }] = await Promise.all([
			import('ink'),
			import('react'),
			import('../ui/root.tsx'),
			import('../ui/screens/compare/Screen.tsx'),
		]);
		const app = render(
			createElement(
				Root,
				{ program: opts.program },
				createElement(CompareScreen, { walk, reportHint: results }),
			),
			{
				stdin,
				stdout,
				exitOnCtrlC: false,
				patchConsole: false,
			},
		);
		await app.waitUntilExit();
		const { judged, total } = walk.progress();
		output(opts.stderr ?? process.stderr).line(
			`${annotator}: ${judged}/${total} pairs judged, all saved. ${
				judged < total
					? `Continue with: ${commandLine(opts.program, `compare --name ${shellWord(name)} --annotator ${shellWord(annotator)}${sessionsDirArg(dir)}`)}`
					: `See the results with: ${results}`
			}`,
		);
		return 0;
	} finally {
		await store.close();
	}
}

/** `booook compare --model M`: the model judges every pair it has not, then the results are printed. */
async function judgeCommand(
	dir: string,
	opts: CompareOptions,
	judge: NonNullable<CompareOptions['judge']>,
): Promise<number> {
	const err = output(opts.stderr ?? process.stderr);
	const name = await comparisonNameFor(opts);
	// Made first when the sources are named: a model may judge before any person does.
	if (opts.sources.length > 0) await (await openComparison(dir, opts)).close();
	const judging = await compareJudging(dir, name, { ...judge, env: opts.env });
	const provider = judge.provider ? ` --provider ${judge.provider}` : '';
	const model = judge.model ? ` --model ${shellWord(judge.model)}` : '';
	const again = commandLine(
		opts.program,
		`compare --name ${shellWord(name)}${provider}${model}${sessionsDirArg(dir)}`,
	);
	const abort = new AbortController();
	err.line(
		`judging comparison ${name} with ${judging.judge}: one call per pair it has not judged, the two summaries in the order shown to people`,
	);
	const result = await cancelOnSignal(
		() => abort.abort(),
		() => judging.run(abort.signal),
	);
	const cost = `${counted(result.totals.calls, 'call')}, ${result.priced ? usd(result.totals.cost) : 'cost unknown (no price for the model)'}`;
	if (result.status === 'cancelled') {
		err.line(
			`interrupted after ${counted(result.judged, 'pair')} judged (${cost}); they are saved. Continue with: ${again}`,
		);
		return 130;
	}
	if (result.status === 'failed') {
		err.line(
			`judging failed: ${result.error ?? 'unknown error'}. Fix the cause, then continue with: ${again}`,
		);
		return 1;
	}
	const unreadable =
		result.unreadable > 0
			? `; ${counted(result.unreadable, 'answer')} could not be read (those pairs stay unjudged; the same command asks again)`
			: '';
	err.line(`${result.judge} judged ${counted(result.judged, 'pair')} (${cost})${unreadable}`);
	return printComparison(dir, name, { ...opts, stdout: opts.stdout ?? process.stdout });
}

/** From the home screen (C): the selected session against the other finished sessions of its book. */
export async function compareFromHome(dir: string, id: string, program: string): Promise<number> {
	const sources = await sameBookSessions(dir, id);
	return compareCommand(dir, { sources, seed: 2024, resamples: 2000, results: false, json: false, program });
}
