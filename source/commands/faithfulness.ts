import { sessionsDirArg, resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { faithfulnessJudging, type FaithfulnessOptions } from '../app/faithfulness.ts';
import {
	accountLimits,
	withPassModelOptions,
	integerFrom,
	PRICES_HELP,
	sessionsDirOption,
	withRateLimitOptions,
	type Exit,
} from './flags.ts';
import { cancelOnSignal } from './interrupt.ts';
import { output, safeText, type Stream } from './output.ts';
import { commandLine } from '../program.ts';
import { usd } from '../format/cost.ts';
import { counted } from '../format/count.ts';
import { CLAIM_PASSAGES } from '../score/claims.ts';
import { faithfulnessLines } from '../score/faithfulness.ts';
import { embeddingsModel, spendLines, withEmbeddingsOption } from './embeddings-flag.ts';

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
			CLAIM_PASSAGES,
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
		const { judge } = judging;
		const abort = new AbortController();
		const out = output(opts.stderr ?? process.stderr);
		out.line(
			`judging the final summary of ${opts.id} with ${judge.provider}/${judge.model}: one call per ` +
				`sentence to split it into claims, then one per claim with its ${counted(opts.top ?? CLAIM_PASSAGES, 'best passage')} of the book`,
		);
		const result = await cancelOnSignal(
			() => abort.abort(),
			() => judging.run(abort.signal),
		);
		const cost = `${counted(result.totals.calls, 'call')}, ${usd(result.totals.cost)}`;
		const spend = judging.embeddings?.();
		if (spend) for (const line of spendLines(spend)) out.line(line);
		if (result.status === 'cancelled') {
			out.line(
				`stopped after ${counted(result.judged, 'verdict')} (${cost}); they are saved. Continue with: ` +
					`${commandLine(opts.program, `faithfulness ${opts.id}${sessionsDirArg(opts.sessionsDir)}`)}`,
			);
			return 130;
		}
		if (result.status === 'failed') {
			const again = commandLine(opts.program, `faithfulness ${opts.id}${sessionsDirArg(opts.sessionsDir)}`);
			out.line(
				`judging failed: ${result.error ?? 'unknown error'}. Fix the cause, then continue with: ${again}`,
			);
			return 1;
		}
		const report = commandLine(opts.program, `report ${opts.id}${sessionsDirArg(opts.sessionsDir)}`);
		out.line(
			`${counted(result.judged, 'sentence')} judged through ${counted(result.claims, 'claim')}${unreadable(result)} ` +
				`(${cost}); the other judges, the people's verdicts and agreement: ${report}`,
		);
		// The figures come last, where a person reads first, as score's do: on stdout, the result.
		const figures = faithfulnessLines(judging.figures(), (text) => safeText(text));
		if (figures.length > 0) output(opts.stdout ?? process.stdout).line(figures.join('\n'));
		return 0;
	} finally {
		await judging.close();
	}
}

/** The answers that could not be read, as the closing line names them (none: nothing). */
function unreadable(result: { unreadable: number; unsplit: number }): string {
	const parts = [
		result.unsplit > 0
			? `${counted(result.unsplit, 'sentence')} judged whole (claims answer unreadable)`
			: '',
		result.unreadable > 0
			? `${counted(result.unreadable, 'claim')} unreadable (counted as unchecked, so not faithful)`
			: '',
	].filter((p) => p !== '');
	return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}
