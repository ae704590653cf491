import { sessionsDirArg, resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { FAITHFULNESS_TOP, faithfulnessJudging, type FaithfulnessOptions } from '../app/faithfulness.ts';
import {
	withPassModelOptions,
	integerFrom,
	PRICES_HELP,
	sessionsDirOption,
	withRateLimitOptions,
	type Exit,
} from './flags.ts';
import { accountLimits } from '../app/services.ts';
import { abortOnSignal } from './interrupt.ts';
import { output, type Stream } from './output.ts';
import { commandLine } from '../program.ts';
import { judgingEndLine, judgingLine } from '../format/faithfulness.ts';
import { withEmbeddingsOption } from './embeddings-flag.ts';
import { embeddingsModel } from '../app/dense-evidence.ts';
import { spendLines } from '../format/embeddings.ts';

export const spec = (exit: Exit, program: string) =>
	withPassModelOptions(withEmbeddingsOption(withRateLimitOptions(new Command('faithfulness'))), 'judging')
		.description(
			`a model judges each sentence of a run's final summary FABLES' way: it splits the sentence ` +
				`into atomic claims and judges each supported, not found or contradicted against the passages ` +
				`of the book retrieved for it, quoting them (booook checks each quote is word for word in a ` +
				`passage); as LongEval counts, a sentence or claim the book does not state is not faithful; ` +
				`see the results with ${commandLine(program, 'report ID')}`,
		)
		.argument('<id>', `session id of a run (see: ${commandLine(program, 'sessions')})`)
		.option(
			'--top <k>',
			'passages of the book shown to the judge per claim',
			integerFrom('--top', 1),
			FAITHFULNESS_TOP,
		)
		.option(
			'--prompts <dir>',
			"read the judge's prompt templates (faithfulness-claims.txt, faithfulness-judge.txt) from this folder (missing ones come from prompts/)",
		)
		.option('--prices <file>', PRICES_HELP)
		.addOption(sessionsDirOption())
		.action(async (id, flags) => {
			exit(
				await faithfulnessCommand({
					...flags,
					embeddings: embeddingsModel(flags.embeddings),
					id,
					sessionsDir: resolveSessionsDir(flags.sessionsDir),
					account: accountLimits(flags),
					program,
				}),
			);
		});

/**
 * `booook faithfulness ID`: the judging set up (every refusal before the session is touched), then
 * run until done, failed or interrupted (the verdicts so far are saved; the same command continues).
 */
export async function faithfulnessCommand(
	opts: FaithfulnessOptions & { program: string; stdout?: Stream; stderr?: Stream },
): Promise<number> {
	const judging = await faithfulnessJudging(opts);
	try {
		const out = output(opts.stderr ?? process.stderr);
		out.line(judgingLine(opts.id, judging.judge, opts.top ?? FAITHFULNESS_TOP));
		const result = await abortOnSignal((signal) => judging.run(signal));
		const spend = judging.embeddings?.();
		if (spend) for (const line of spendLines(spend)) out.line(line);
		const where = `${opts.id}${sessionsDirArg(opts.sessionsDir)}`;
		const again = commandLine(opts.program, `faithfulness ${where}`);
		out.line(judgingEndLine(result, again, commandLine(opts.program, `report ${where}`)));
		if (result.status !== 'done') return result.status === 'cancelled' ? 130 : 1;
		// The figures come last, where a person reads first, as score's do: on stdout, the result.
		const figures = judging.figures();
		if (figures.length > 0) output(opts.stdout ?? process.stdout).line(figures.join('\n'));
		return 0;
	} finally {
		await judging.close();
	}
}
