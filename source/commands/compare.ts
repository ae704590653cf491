import { Command } from '@commander-js/extra-typings';
import {
	CompareWalk,
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
import { integerFrom, sessionsDirOption, type Exit } from './flags.ts';
import { output, type Stream } from './output.ts';

export const spec = (exit: Exit) =>
	new Command('compare')
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
				}),
			);
		});

export interface CompareOptions extends CompareTarget {
	annotator?: string;
	resamples: number;
	results: boolean;
	json: boolean;
	stdin?: NodeJS.ReadStream;
	stdout?: NodeJS.WriteStream;
	stderr?: Stream;
}

/** `booook compare`: the comparison made or found, then the walk in the terminal, or its results printed. */
export async function compareCommand(dir: string, opts: CompareOptions): Promise<number> {
	const stdin = opts.stdin ?? process.stdin;
	const stdout = opts.stdout ?? process.stdout;
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
