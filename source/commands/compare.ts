import { resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { commandLine } from '../program.ts';
import { compareCommand } from './compare-screen.ts';
import {
	integerFrom,
	PRICES_HELP,
	sessionsDirOption,
	withPassModelOptions,
	withRateLimitOptions,
	type Exit,
} from './flags.ts';
import { accountLimits } from '../app/services.ts';

export const spec = (exit: Exit, program: string) =>
	withPassModelOptions(withRateLimitOptions(new Command('compare')), 'judge')
		.description(
			"compare finished summaries of the same book two at a time, blind (the paper's Table 4): each " +
				'pair shown in a random order with who made it hidden until you have judged overall preference, ' +
				'level of detail, structure and pacing, and logic and understandability (a, b or t each)',
		)
		.argument(
			'[sources...]',
			`session ids (see: ${commandLine(program, 'sessions')}) or one study file; none: continue the comparison --name`,
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
			'a model judges every pair instead of you (also implied by --model or --provider): one call ' +
				'per pair, in the order shown to people; then the results, with its agreement with the people',
		)
		.option('--prompts <dir>', "read the judge's prompt template (compare-judge.txt) from this folder")
		.option('--prices <file>', PRICES_HELP)
		.addOption(sessionsDirOption())
		.action(async (sources, flags) => {
			exit(
				await compareCommand(resolveSessionsDir(flags.sessionsDir), {
					program,
					sources,
					name: flags.name,
					seed: flags.seed,
					annotators: flags.annotators?.split(','),
					overlap: flags.overlap,
					annotator: flags.annotator,
					resamples: flags.resamples,
					results: !!flags.results,
					json: !!flags.json,
					judge:
						flags.judge || flags.model || flags.provider
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
