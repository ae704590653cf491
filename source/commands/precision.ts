import { resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { precision, type PrecisionSource } from '../app/precision.ts';
import { output, type Stream } from './output.ts';
import { sessionsDirOption, withBootstrapOptions, type Exit } from './flags.ts';
import { commandLine } from '../program.ts';
import { precisionLines, precisionSourcesJson } from '../format/precision.ts';

export const spec = (exit: Exit, program: string) =>
	withBootstrapOptions(
		new Command('precision')
			.description(
				"precision of human and model annotations from a session's verdicts or a validation file (paper " +
					"Appendix G), with intervals over books (Wilson's over the annotations when the books are too few)",
			)
			.argument('[id]', `session id (see: ${commandLine(program, 'sessions')})`)
			.option('--validation <file>', "the authors' validation JSON (annotations-gpt4-4096-inc.json format)")
			.option(
				'--validator <name>',
				'whose verdicts count in the session (needed when more than one person or study judged)',
			)
			.addOption(sessionsDirOption()),
	)
		.option('--json', 'print { human: { precision, strict, n, ci }, model: { ... } }')
		.action(async (id, flags) => {
			exit(
				await precisionCommand({
					...flags,
					id,
					sessionsDir: resolveSessionsDir(flags.sessionsDir),
					json: !!flags.json,
				}),
			);
		});

export interface PrecisionOptions extends PrecisionSource {
	json: boolean;
	stdout?: Stream;
}

/**
 * `booook precision (ID | --validation F)`: per annotation source, precision (Agree + Partially
 * agree over judged), strict precision (Agree only), counts, and 95% intervals: a bootstrap over
 * books (a session's summaries) when there are enough, else Wilson's over the judged annotations.
 * Both inputs go through the same computation and printing, so a session imported from a
 * validation file gives exactly the file's numbers.
 */
export async function precisionCommand(opts: PrecisionOptions): Promise<number> {
	const { heading, bySource } = await precision(opts);
	const out = output(opts.stdout ?? process.stdout);
	if (opts.json) out.json(precisionSourcesJson(bySource));
	else for (const line of precisionLines(heading, bySource)) out.line(line);
	return 0;
}
