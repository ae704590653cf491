import { Command } from '@commander-js/extra-typings';
import type { ConfigInput } from '../config.ts';
import { planRun } from '../app/plan.ts';
import type { Exit } from './flags.ts';
import { output, type Stream } from './output.ts';
import { configInput, withRunAndLimitOptions } from './run-config.ts';
import { planLines } from '../format/plan.ts';
import type { StatedLimits } from '../llm/rate-limit.ts';

export const spec = (exit: Exit) =>
	withRunAndLimitOptions(
		new Command('plan')
			.description(
				'show what a run would do, without any model call: tokens, chunks, calls per level or step, estimated cost',
			)
			.argument('<book>', 'a .txt (UTF-8) or .epub file')
			.option('--json', 'print the plan as JSON'),
	).action(async (book, flags) => {
		exit(
			await planCommand(book, {
				config: configInput(flags),
				json: !!flags.json,
				prices: flags.prices,
				limits: { tpm: flags.tpm ?? null, rpm: flags.rpm ?? null },
			}),
		);
	});

/**
 * `booook plan BOOK`: what a run would do, without a model call — the book's tokens, the chunks, the
 * calls per level or step (estimates where summary lengths are not known yet) and their cost.
 */
export async function planCommand(
	path: string,
	opts: { config: ConfigInput; json: boolean; prices?: string; limits?: StatedLimits; stdout?: Stream },
): Promise<number> {
	const out = output(opts.stdout ?? process.stdout);
	const result = await planRun(path, opts);
	if (opts.json) out.json(result, 2);
	else out.line(planLines(result).join('\n'));
	return 0;
}
