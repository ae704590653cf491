import { Command } from '@commander-js/extra-typings';
import {
	CompareWalk,
	compareJudging,
	comparisonNameFor,
	comparisonResults,
	openComparison,
	type CompareTarget,
} from '../app/compare.ts';
import { validatorName } from '../app/validation.ts';
import { badInput } from '../errors.ts';
import { commandLine, shellWord } from '../program.ts';
import { sessionsDirArg } from '../store/dirs.ts';
import { resolveSessionsDir } from '../store/session.ts';
import { compareJson, compareLines } from './compare-results.ts';
import {
	accountLimits,
	integerFrom,
	PRICES_HELP,
	sessionsDirOption,
	withPassModelOptions,
	withRateLimitOptions,
	type Exit,
} from './flags.ts';
import { cancelOnSignal } from './interrupt.ts';
import { usd } from '../format/cost.ts';
import { counted } from '../format/count.ts';
import type { AccountLimits } from '../llm/create.ts';
import { output, type Stream } from './output.ts';

export const spec = (exit: Exit) =>
	withPassModelOptions(withRateLimitOptions(new Command('compare')), 'judge')
		.description(
			"compare finished summaries of the same book two at a time, blind (the paper's Table 4): each pair shown in a random order with who made it hidden until you have judged overall preference, level of detail, structure and pacing, and logic and understandability (a, b or t each)",
		)
		.argument(
			'[sources...]',
			`session ids (see: ${commandLine('sessions')}) or one study file; none: continue the comparison --name`,
		)
		.option('--name <name>', "the comparison (default: the study's name, else one made from the session ids)")
		.option('--annotator <name>', 'your name, stored with every answer (default: the OS user)')
		.option(
			'--annotators <names>',
			'when the comparison is made: split its pairs between these annotators (comma-separated), as the paper did; default: every annotator judges every pair',
		)
		.option(
			'--overlap <n>',
			'with --annotators: this many pairs go to every one of them, for agreement',
			integerFrom('--overlap', 0),
		)
		.option(
			'--seed <n>',
			"seed of the pairs' order and of which summary is shown first, and of the bootstrap",
			integerFrom('--seed', 0),
			2024,
		)
		.option(
			'--resamples <n>',
			'bootstrap resamples of the results (at least 1)',
			integerFrom('--resamples', 1),
			2000,
		)
		.option(
			'--results',
			'print the results (Table 4, agreement, the correlation with BooookScore) instead of judging',
		)
		.option('--json', 'print the results as JSON instead of judging')
		.option(
			'--judge',
			'a model judges every pair instead of you (also implied by --model or --provider): one call per pair, in the order shown to people; then the results, with its agreement with the people',
		)
		.option('--prompts <dir>', "read the judge's prompt template (compare-judge.txt) from this folder")
		.option('--prices <file>', PRICES_HELP)
		.addOption(sessionsDirOption())
		.action(async (sources, flags) => {
			exit(
				await compareCommand(resolveSessionsDir(flags.sessionsDir), {
					sources,
					name: flags.name,
					seed: flags.seed,
					annotators: flags.annotators?.split(','),
					overlap: flags.overlap,
					annotator: flags.annotator,
					resamples: flags.resamples,
					results: !!flags.results,
					json: !!flags.json,
					judge: flags.judge || flags.model || flags.provider
						? {
								provider: flags.provider,
								model: flags.model,
								baseUrl: flags.baseUrl,
								concurrency: flags.concurrency,
								prompts: flags.prompts,
								prices: flags.prices,
								account: accountLimits(flags),
							}
						: undefined,
				}),
			);
		});

export interface CompareOptions extends CompareTarget {
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
			`compare is interactive and needs a terminal; for the results of judgments made use: ${commandLine('compare --name NAME --results')} (or --json)`,
		);
	// The results only read: a comparison not made yet is not made by asking for them.
	if (!walking) return printComparison(dir, await comparisonNameFor(opts), { ...opts, stdout });
	const annotator = validatorName(opts.annotator);
	const store = await openComparison(dir, opts);
	const name = store.definition.name;
	const results = commandLine(`compare --name ${shellWord(name)} --results${sessionsDirArg(dir)}`);
	try {
		const walk = new CompareWalk(store, annotator);
		const [{ render }, { createElement }, { Root }, { CompareScreen }] = await Promise.all([
			import('ink'),
			import('react'),
			import('../ui/root.tsx'),
			import('../ui/screens/compare/Screen.tsx'),
		]);
		const app = render(
			createElement(Root, null, createElement(CompareScreen, { walk, reportHint: results })),
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
					? `Continue with: ${commandLine(`compare --name ${shellWord(name)} --annotator ${shellWord(annotator)}${sessionsDirArg(dir)}`)}`
					: `See the results with: ${results}`
			}`,
		);
		return 0;
	} finally {
		await store.close();
	}
}

/** The results of comparison `name`, as text or JSON (also `booook report NAME.compare`). */
export async function printComparison(
	dir: string,
	name: string,
	opts: { json: boolean; seed: number; resamples: number; stdout?: Stream },
): Promise<number> {
	const { snapshot, results, scores } = await comparisonResults(dir, name, opts);
	const out = output(opts.stdout ?? process.stdout);
	if (opts.json) out.json(compareJson(snapshot, results, scores));
	else out.line(compareLines(snapshot, results).join('\n'));
	return 0;
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
	const again = commandLine(
		`compare --name ${shellWord(name)}${judge.provider ? ` --provider ${judge.provider}` : ''}${judge.model ? ` --model ${shellWord(judge.model)}` : ''}${sessionsDirArg(dir)}`,
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
