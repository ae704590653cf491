import { resolveSessionsDir } from '../config.ts';
import { Command, Option } from '@commander-js/extra-typings';
import { decimal, integerFrom, sessionsDirOption, type Exit } from './flags.ts';
import { VALIDATE_MODES } from '../app/validation.ts';
import { validateInTerminal } from './validate-screen.ts';
import { commandLine } from '../program.ts';

export const spec = (exit: Exit, program: string) =>
	new Command('validate')
		.description(
			"judge a session's annotations by hand, sentence by sentence (agree, partially, disagree), and add your own (paper Appendix G)",
		)
		.argument('<id>', `session id (see: ${commandLine(program, 'sessions')})`)
		.option('--validator <name>', 'your name, stored with every verdict (default: the OS user)')
		.addOption(
			new Option(
				'--mode <mode>',
				'model or human annotations only; blind: both, mixed in a seeded order, sources hidden until ' +
					'the end; sample: a random share of both; faithfulness: mark each sentence of the summary (s: ' +
					"or each claim a model judge split it into) faithful, partially supported, unfaithful or can't tell (LongEval; FABLES)",
			)
				.choices(VALIDATE_MODES)
				.default('blind'),
		)
		.option(
			'--fraction <share>',
			'with --mode sample: the share of annotations to judge (default 0.2); with --mode faithfulness: ' +
				"judge only this share of each summary's sentences, a random sample of your own (LongEval partial annotation; default: all)",
			decimal('--fraction'),
		)
		.option(
			'--seed <n>',
			'seed of the blind order and of the sample, 0 or more (the same seed continues the same walk)',
			integerFrom('--seed', 0),
			2024,
		)
		.addOption(sessionsDirOption())
		.action(async (id, flags) => {
			exit(
				await validateInTerminal(resolveSessionsDir(flags.sessionsDir), id, {
					...flags,
					sessionsDir: flags.sessionsDir,
					program,
				}),
			);
		});
