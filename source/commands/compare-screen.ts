import { sessionsDirArg } from '../config.ts';
import {
	comparisonJudging,
	comparisonNameFor,
	type CompareTarget,
	type ComparisonJudge,
} from '../app/compare.ts';
import type { ComparisonAsked, WalkedComparison } from '../ui/screens/compare/App.tsx';
import { validatorName } from '../app/validation.ts';
import { badInput } from '../errors.ts';
import { judgingEnded, judgingStarted } from '../format/compare-judge.ts';
import { comparisonWalked } from '../format/walk-end.ts';
import { commandLine, next, said, say, shellWord } from '../program.ts';
import { printComparison } from './compare-results.ts';
import { abortOnSignal } from './interrupt.ts';
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
	judge?: ComparisonJudge;
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
	const asked = comparisonAsked(dir, opts, opts.annotator, opts.program);
	const { walkComparison } = await import('../ui/screens/compare/App.tsx');
	saidCompared(dir, asked, await walkComparison(dir, asked, { stdin, stdout }), opts.stderr);
	return 0;
}

/** The comparison's walk as the command (or the home screen) asks for it: whose, and the hint of its results. */
export function comparisonAsked(
	dir: string,
	target: CompareTarget,
	annotator: string | undefined,
	program: string,
): ComparisonAsked {
	return {
		target,
		annotator: validatorName(annotator),
		program,
		reportHint: (name) =>
			commandLine(program, `compare --name ${shellWord(name)} --results${sessionsDirArg(dir)}`),
	};
}

/** How far the annotator got, on stderr, and the command that continues the walk (or prints the results, once done). */
export function saidCompared(
	dir: string,
	asked: ComparisonAsked,
	walked: WalkedComparison,
	stderr?: Stream,
): void {
	const walkedLine = comparisonWalked(
		asked.annotator,
		walked,
		asked.reportHint(walked.name),
		sessionsDirArg(dir),
	);
	output(stderr ?? process.stderr).line(say(walkedLine, asked.program));
}

/** `booook compare --model M`: the model judges every pair it has not, then the results are printed. */
async function judgeCommand(
	dir: string,
	opts: CompareOptions,
	judge: NonNullable<CompareOptions['judge']>,
): Promise<number> {
	const err = output(opts.stderr ?? process.stderr);
	const { name, ...judging } = await comparisonJudging(dir, opts, { ...judge, env: opts.env });
	const provider = judge.provider ? ` --provider ${judge.provider}` : '';
	const model = judge.model ? ` --model ${shellWord(judge.model)}` : '';
	const again = commandLine(
		opts.program,
		`compare --name ${shellWord(name)}${provider}${model}${sessionsDirArg(dir)}`,
	);
	err.line(judgingStarted(name, judging.judge));
	const result = await abortOnSignal((signal) => judging.run(signal));
	err.line(judgingEnded(result, again));
	if (result.status !== 'done') return result.status === 'cancelled' ? 130 : 1;
	return printComparison(dir, name, { ...opts, stdout: opts.stdout ?? process.stdout });
}
