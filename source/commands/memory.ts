import { sessionsDirArg, resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import {
	finalTables,
	MEMORY_QUESTIONS,
	MEMORY_SCENE_WORDS,
	MEMORY_STEPS,
	memoryOf,
	memoryProbe,
	planMemory,
	type MemoryOptions,
} from '../app/memory.ts';
import { forgettingOf } from '../app/forgetting.ts';
import { commandLine, say as sayIn } from '../program.ts';
import {
	integerFrom,
	withPassModelOptions,
	PRICES_HELP,
	sessionsDirOption,
	withRateLimitOptions,
	type Exit,
} from './flags.ts';
import { accountLimits } from '../app/services.ts';
import { abortOnSignal } from './interrupt.ts';
import { output, terminalColumns, type Stream } from './output.ts';
import { throttledLine } from './sentence-progress.ts';
import {
	answeredLine,
	forgettingLines,
	memoryJson,
	memoryPlanJson,
	memoryPlanLine,
	memoryResultLines,
	probeEndLine,
	probingLine,
	stageLine,
} from '../format/memory.ts';

export const spec = (exit: Exit, program: string) =>
	withPassModelOptions(withRateLimitOptions(new Command('memory')), 'answering')
		.description(
			`memory probes (NarrativeXL): a model that sees only a summary, never the book, answers read-along ` +
				`questions ("In what you have read so far, was there a scene where ..."), with true scenes, ` +
				`scenes not read yet, other books' scenes (names replaced by this book's) and "None of the above", ` +
				`and again with the summary hidden (the floor); prints accuracy beside its floor by how far ` +
				`back the scene lies, by question type, what always picking the longest or shortest option scores, ` +
				`and a retention curve. Several ids: the final summaries side by side, one table per question ` +
				`set (hierarchical against incremental). --forgetting draws, with no model call, which chunks ` +
				`an incremental run's running summary still cites at each step`,
		)
		.argument('<ids...>', `session ids of finished runs (see: ${commandLine(program, 'sessions')})`)
		.option(
			'--questions <n>',
			'questions asked of each summary',
			integerFrom('--questions', 1),
			MEMORY_QUESTIONS,
		)
		.option(
			'--steps <n>',
			'running summaries of an incremental run asked about besides the final one, spread over the run (0: the final only)',
			integerFrom('--steps', 0),
			MEMORY_STEPS,
		)
		.option(
			'--scenes <words>',
			"the scenes of every option (this book's and other books' alike) are written by the answering model, " +
				`each of a stretch of about this many words of its book (default ${MEMORY_SCENE_WORDS})`,
			integerFrom('--scenes', 50),
		)
		.option(
			'--level-0-scenes',
			"every option a run's level-0 summary instead of a written scene: this hierarchical run's, and other books' hierarchical runs' in the sessions folder",
		)
		.option(
			'--distractors <dir>',
			'a folder of .txt or .epub books whose scenes are other-book options too, beside the other books of the sessions folder',
		)
		.option(
			'--distortions',
			"also ask as many distortion questions of each summary (NarrativeXL's third kind): the wrong options " +
				'are scenes of this book already read, each with one fact changed by the answering model',
		)
		.option('--seed <n>', 'seed of the questions drawn and their order', integerFrom('--seed', 0), 1)
		.option(
			'--rename',
			"show this book's people and places under random names drawn with the seed, in the options, the summary " +
				"and the ceiling's text alike (NarrativeXL, against a reader who knows the book); a question set of its own",
		)
		.option(
			'--ceiling',
			"also ask each question with the book's own text of the scene shown instead of the summary: the questions' ceiling",
		)
		.option(
			'--no-floor',
			"do not ask each question again with the summary hidden (the floor: what the options and the book's fame answer alone)",
		)
		.option('--plan', 'print the calls and estimated cost, and exit without a call')
		.option(
			'--forgetting',
			"draw an incremental run's forgetting map (which chunks each step still cites); no model call",
		)
		.option('--json', 'print the results as JSON')
		.option(
			'--prompts <dir>',
			'read the prompt templates (memory-question.txt, memory-floor.txt, memory-scene.txt, memory-distortion.txt) ' +
				'from this folder (missing ones come from prompts/)',
		)
		.option('--prices <file>', PRICES_HELP)
		.addOption(sessionsDirOption())
		.action(async (ids, flags) => {
			const sessionsDir = resolveSessionsDir(flags.sessionsDir);
			exit(
				await memoryCommand(ids, {
					...flags,
					scenes: flags.scenes ?? null,
					levelZero: flags.level0Scenes ?? false,
					distractors: flags.distractors ?? null,
					sessionsDir,
					account: accountLimits(flags),
					program,
				}),
			);
		});

type MemoryFlags = Omit<MemoryOptions, 'id'> & {
	/** How booook was started, for the command line that continues a probe. */
	program: string;
	plan?: boolean;
	forgetting?: boolean;
	json?: boolean;
	stdout?: Stream;
	stderr?: Stream;
};

/**
 * `booook memory ID...`: each session's probe set up (every refusal before a session is touched),
 * then run until done, failed or interrupted (the answers so far are saved; the same command
 * continues), then the results, one session after another and side by side.
 */
export async function memoryCommand(ids: readonly string[], opts: MemoryFlags): Promise<number> {
	const out = output(opts.stdout ?? process.stdout);
	const err = opts.stderr ?? process.stderr;
	const width = terminalColumns(opts.stdout ?? process.stdout) ?? 80;
	if (opts.forgetting) {
		for (const id of ids) {
			const progress = progressLine(err);
			const map = await forgettingOf({
				id,
				sessionsDir: opts.sessionsDir,
				onStep: (done, total) => progress.tick({ stage: 'steps placed', done, total }),
			});
			progress.end();
			if (opts.json) out.json(map);
			else for (const line of forgettingLines(map, width)) out.line(line);
		}
		return 0;
	}
	if (opts.plan) {
		for (const id of ids) {
			const { reader, plan } = await planMemory({ ...opts, id });
			if (opts.json) out.json(memoryPlanJson(id, reader, plan));
			else out.line(memoryPlanLine(id, reader, plan));
		}
		return 0;
	}
	for (const id of ids) {
		const probe = await memoryProbe({ ...opts, id });
		try {
			const say = output(err);
			say.line(probingLine(id, probe.reader, probe.plan));
			const progress = progressLine(err);
			const result = await abortOnSignal((signal) => probe.run(signal, progress.tick));
			progress.end();
			if (result.status !== 'done') {
				const again = commandLine(opts.program, `memory ${id}${sessionsDirArg(opts.sessionsDir)}`);
				say.line(probeEndLine(result, again));
				return result.status === 'cancelled' ? 130 : 1;
			}
			say.line(answeredLine(result));
			for (const note of result.notes) say.line(sayIn(note, opts.program));
		} finally {
			await probe.close();
		}
	}
	const found = await Promise.all(ids.map((id) => memoryOf(opts.sessionsDir, id)));
	if (opts.json) out.json(found.map(memoryJson), 2);
	else for (const line of memoryResultLines(found, finalTables(found), width)) out.line(line);
	return 0;
}
/** "scenes 12/40", "answers 30/150", "steps placed 100/366": long work's progress, on stderr. */
function progressLine(stream: Stream) {
	const line = throttledLine(stream);
	return {
		tick: (p: { stage: string; done: number; total: number }) =>
			line.tick(() => stageLine(p), p.done === p.total),
		end: () => line.end(),
	};
}
