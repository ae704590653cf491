import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { ConfigInput } from './config.ts';
import { DEFAULTS } from './config.ts';
import type { ProviderName } from './domain.ts';
import { UserError, errorMessage } from './errors.ts';
import { defaultModel, defaultProvider } from './llm/create.ts';
import { resolveSessionsDir } from './store/dirs.ts';
import { ENCODINGS } from './text/tokens.ts';
import { output } from './commands/output.ts';

/** booook's own version, from its package.json. */
function packageVersion(): string {
	return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** argv -> one command. Each command returns its exit code: 0 done, 1 run failed, 2 bad input or usage. */

const program = new Command('booook')
	.version(packageVersion(), '-V, --version', 'print the version and exit')
	.description(
		'Summarize books longer than a model\'s context (BooookScore, ICLR 2024): hierarchical merging or incremental updating.\n' +
			'Without an API key the offline extractive baseline (TextRank, not an LLM) is used.',
	)
	// Every message goes through the one output module; a usage error is one line, like every other error.
	.configureOutput({
		writeOut: (text) => output(process.stdout).text(text),
		writeErr: (text) => output(process.stderr).text(text),
		outputError: (text) => output(process.stderr).line(`booook: ${usageError(text)} (run with --help for usage)`),
	})
	.exitOverride();

/** Commander's message ("error: ...", sometimes with a "(Did you mean ...?)" line) on one line. */
function usageError(text: string): string {
	return text.replace(/^error: /u, '').replace(/\s*\n\s*/gu, ' ').trim();
}

const integer = (flag: string) => (value: string) => {
	if (!/^-?\d+$/u.test(value.trim())) throw new InvalidArgumentError(`${flag} takes a whole number`);
	return Number(value);
};
const decimal = (flag: string) => (value: string) => {
	const n = Number(value);
	if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`${flag} takes a number`);
	return n;
};

const sessionsDirOption = () => new Option('--sessions-dir <dir>', 'where sessions are kept (default: $BOOOOK_SESSIONS, else ./sessions)');

/** Options shared by `run` and `plan`: the run's configuration. */
function withRunOptions(cmd: Command): Command {
	return cmd
		.addOption(new Option('--method <method>', 'hier (hierarchical merging) or inc (incremental updating)').choices(['hier', 'inc']).default(DEFAULTS.method))
		.addOption(new Option('--provider <name>', 'openai, anthropic or extractive (default: openai if OPENAI_API_KEY is set, else anthropic if ANTHROPIC_API_KEY is set, else extractive)').choices(['openai', 'anthropic', 'extractive']))
		.option('--model <name>', 'model name (default: gpt-4o-mini, claude-sonnet-4-6, or textrank for extractive)')
		.option('--base-url <url>', 'an OpenAI-compatible (or Anthropic) server, e.g. http://localhost:8000/v1 (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)')
		.option('--chunk-size <n>', 'C: most tokens per chunk', integer('--chunk-size'), DEFAULTS.chunkSize)
		.option('--context-window <n>', 'W: the model\'s context window in tokens', integer('--context-window'), DEFAULTS.contextWindow)
		.option('--max-summary <n>', 'G_n: most tokens of the final summary', integer('--max-summary'), DEFAULTS.maxSummary)
		.option('--temperature <t>', 'sampling temperature of first attempts (regenerations use 1)', decimal('--temperature'), DEFAULTS.temperature)
		.option('--concurrency <n>', 'most calls at once', integer('--concurrency'), DEFAULTS.concurrency)
		.addOption(new Option('--encoding <name>', 'tiktoken encoding for counting tokens').choices([...ENCODINGS]).default(DEFAULTS.encoding))
		.option('--clean', 'remove progressive-writing artifacts from the final summary (paper J.3; default on for LLM providers)')
		.option('--no-clean', 'keep the final summary as written')
		.option('--stream-timeout <seconds>', 'abort and retry a stream that sends nothing for this long', decimal('--stream-timeout'), DEFAULTS.streamTimeout)
		.option('--call-timeout <seconds>', 'abort and retry a stream still going this long after it started (default: the stream timeout plus 0.25 s per token of the output limit)', decimal('--call-timeout'))
		.option('--seed <n>', 'seed recorded with the run', integer('--seed'), DEFAULTS.seed)
		.option('--prompts <dir>', 'read prompt templates from this folder (missing ones come from prompts/)')
		.option('--prices <file>', 'price table JSON (default: $BOOOOK_PRICES, else ~/.config/booook/prices.json)');
}

interface RunFlags {
	method: string;
	provider?: ProviderName;
	model?: string;
	baseUrl?: string;
	chunkSize: number;
	contextWindow: number;
	maxSummary: number;
	temperature: number;
	concurrency: number;
	encoding: string;
	clean?: boolean;
	streamTimeout: number;
	callTimeout?: number;
	seed: number;
	prompts?: string;
	prices?: string;
}

function configInput(flags: RunFlags): ConfigInput {
	const provider = flags.provider ?? defaultProvider();
	return {
		method: flags.method,
		provider,
		model: flags.model ?? defaultModel(provider),
		baseUrl: flags.baseUrl ?? null,
		encoding: flags.encoding,
		chunkSize: flags.chunkSize,
		contextWindow: flags.contextWindow,
		maxSummary: flags.maxSummary,
		temperature: flags.temperature,
		concurrency: flags.concurrency,
		seed: flags.seed,
		clean: flags.clean,
		streamTimeout: flags.streamTimeout,
		callTimeout: flags.callTimeout,
		prompts: flags.prompts ?? null,
	};
}

/** The terminal app needs a terminal on both ends; without one, runs are headless and say so. */
function interactive(flags: { headless?: boolean; json?: boolean; step?: boolean }): boolean {
	const app = !flags.headless && !flags.json && Boolean(process.stdin.isTTY && process.stdout.isTTY);
	// Headless, nothing could ever release a held call.
	if (flags.step && !app) throw new UserError('--step needs the terminal app (a terminal, without --headless or --json); leave out --step to run headless', 2);
	return app;
}

/** Said once the run starts (after every input check), so a bad-input error stays one line. */
const headlessNote = (flags: { headless?: boolean; json?: boolean }) =>
	flags.headless || flags.json || interactive(flags) ? undefined : 'not a terminal, so running headless (progress on stderr, final summary on stdout)';

let exitCode = 0;
const set = (code: number) => {
	exitCode = code;
};

withRunOptions(
	program
		.command('run', { isDefault: true })
		.description('summarize BOOK (.txt or .epub) in a new session')
		.argument('<book>', 'a .txt (UTF-8) or .epub file')
		.option('--session <id>', 'name the new session (default: title-date-time-random)')
		.addOption(sessionsDirOption())
		.option('--headless', 'no terminal app: progress on stderr, final summary on stdout (the default without a terminal)')
		.option('--step', 'in the terminal app, start stepping: one call per s key (space runs on)')
		.option('--json', 'print engine events as JSON lines on stdout (headless)'),
).action(async (book: string, flags: RunFlags & { session?: string; sessionsDir?: string; json?: boolean; headless?: boolean; step?: boolean }) => {
	const { runCommand } = await import('./commands/run.ts');
	set(await runCommand(book, { config: configInput(flags), session: flags.session, sessionsDir: resolveSessionsDir(flags.sessionsDir), json: !!flags.json, prices: flags.prices, interactive: interactive(flags), note: headlessNote(flags), step: flags.step }));
});

program
	.command('resume')
	.description('continue a session that was stopped, killed or failed; finished calls are not made again')
	.argument('<id>', 'session id (see: booook sessions)')
	.addOption(sessionsDirOption())
	.option('--headless', 'no terminal app: progress on stderr, final summary on stdout (the default without a terminal)')
	.option('--step', 'in the terminal app, start stepping: one call per s key (space runs on)')
	.option('--json', 'print engine events as JSON lines on stdout (headless)')
	.option('--base-url <url>', "replace the session's server address (for example after it moved); saved with the session")
	.option('--prices <file>', 'price table JSON (default: $BOOOOK_PRICES, else ~/.config/booook/prices.json)')
	.action(async (id: string, flags: { sessionsDir?: string; json?: boolean; prices?: string; baseUrl?: string; headless?: boolean; step?: boolean }) => {
		const { resumeCommand } = await import('./commands/resume.ts');
		set(await resumeCommand(resolveSessionsDir(flags.sessionsDir), id, { json: !!flags.json, prices: flags.prices, baseUrl: flags.baseUrl, interactive: interactive(flags), note: headlessNote(flags), step: flags.step }));
	});

withRunOptions(
	program
		.command('plan')
		.description('show what a run would do, without any model call: tokens, chunks, calls per level or step, estimated cost')
		.argument('<book>', 'a .txt (UTF-8) or .epub file')
		.option('--json', 'print the plan as JSON'),
).action(async (book: string, flags: RunFlags & { json?: boolean }) => {
	const { planCommand } = await import('./commands/plan.ts');
	set(await planCommand(book, { config: configInput(flags), json: !!flags.json, prices: flags.prices }));
});

program
	.command('sessions')
	.description('list saved sessions, most recent first')
	.addOption(sessionsDirOption())
	.option('--json', 'print as JSON')
	.action(async (flags: { sessionsDir?: string; json?: boolean }) => {
		const { sessionsCommand } = await import('./commands/sessions.ts');
		set(await sessionsCommand(resolveSessionsDir(flags.sessionsDir), { json: !!flags.json }));
	});

program
	.command('show')
	.description('a session: configuration, levels or steps, usage and cost, final summary and its statistics')
	.argument('<id>', 'session id')
	.addOption(sessionsDirOption())
	.option('--json', 'print as JSON')
	.action(async (id: string, flags: { sessionsDir?: string; json?: boolean }) => {
		const { showCommand } = await import('./commands/show.ts');
		set(await showCommand(resolveSessionsDir(flags.sessionsDir), id, { json: !!flags.json }));
	});

program
	.command('export')
	.description("write a session's summaries in the BooookScore authors' JSON formats, or its verdicts (validation JSON or CSV)")
	.argument('<id>', 'session id')
	.addOption(new Option('--format <format>', "booookscore: summaries in the authors' format; validation: verdicts in the released precision study's shape; csv: one row per verdict").choices(['booookscore', 'validation', 'csv']).default('booookscore'))
	.option('--intermediate', 'with booookscore: every level (hierarchical) or running summary (incremental), not just the final summary')
	.option('--validator <name>', "with validation or csv: whose verdicts (validation needs one when several people judged)")
	.option('--out <file>', 'write to a file instead of stdout (refuses to replace one)')
	.option('--force', 'with --out: replace an existing file')
	.addOption(sessionsDirOption())
	.action(async (id: string, flags: { format: string; intermediate?: boolean; out?: string; force?: boolean; validator?: string; sessionsDir?: string }) => {
		const { exportCommand } = await import('./commands/export.ts');
		set(await exportCommand(resolveSessionsDir(flags.sessionsDir), id, { format: flags.format, intermediate: !!flags.intermediate, out: flags.out, force: flags.force, validator: flags.validator }));
	});

// A reader that stops early (`booook show ID | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
	if (error.code === 'EPIPE') process.exit(exitCode);
	throw error;
});

program
	.command('score')
	.description('BooookScore: of a session (a run\'s final summary, or a collection), annotating sentences a model has not yet; or of the authors\' files')
	.argument('[id]', 'session id (see: booook sessions)')
	.option('--summaries <file>', "the authors' summaries JSON ({ book: summary }); without --annotations they are annotated in a new collection session")
	.option('--annotations <file>', "the authors' model annotations JSON for those summaries (no model call)")
	.option('--human <file>', "the authors' human annotations JSON (summary-*.json: each span and relation is one confusing sentence)")
	.addOption(new Option('--provider <name>', 'annotate with openai or anthropic (default: the model the session used, else whichever API key is set)').choices(['openai', 'anthropic', 'extractive']))
	.option('--model <name>', 'the annotating model (default: gpt-4o-mini or claude-sonnet-4-6); naming a provider or model scores only its annotations')
	.option('--base-url <url>', 'an OpenAI-compatible (or Anthropic) server (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)')
	.option('--concurrency <n>', 'most annotation calls at once', integer('--concurrency'), DEFAULTS.concurrency)
	.option('--batch-size <n>', "N numbered sentences per call with the authors' batched (v2) prompt; default one sentence per call (v1)", integer('--batch-size'))
	.option('--prompts <dir>', 'read get_annotations(.txt|_v2.txt) from this folder (missing ones come from prompts/)')
	.option('--prices <file>', 'price table JSON (default: $BOOOOK_PRICES, else ~/.config/booook/prices.json)')
	.addOption(sessionsDirOption())
	.option('--json', 'print { booookscore, summaries, sentences, confusing, parse_failures, avg_tokens, types, books, ... }')
	.action(async (id: string | undefined, flags: { summaries?: string; annotations?: string; human?: string; provider?: ProviderName; model?: string; baseUrl?: string; concurrency: number; batchSize?: number; prompts?: string; prices?: string; sessionsDir?: string; json?: boolean }) => {
		const { scoreCommand } = await import('./commands/score.ts');
		set(await scoreCommand({ ...flags, id, sessionsDir: resolveSessionsDir(flags.sessionsDir), json: !!flags.json }));
	});

program
	.command('precision')
	.description("precision of human and model annotations from a session's verdicts or a validation file (paper Appendix G), with bootstrap intervals over books")
	.argument('[id]', 'session id (see: booook sessions)')
	.option('--validation <file>', "the authors' validation JSON (annotations-gpt4-4096-inc.json format)")
	.option('--validator <name>', "whose verdicts count in the session (needed when more than one person or study judged)")
	.addOption(sessionsDirOption())
	.option('--seed <n>', 'seed of the bootstrap', integer('--seed'), 2024)
	.option('--resamples <n>', 'bootstrap resamples', integer('--resamples'), 2000)
	.option('--json', 'print { human: { precision, strict, n, ci }, model: { ... } }')
	.action(async (id: string | undefined, flags: { validation?: string; validator?: string; sessionsDir?: string; json?: boolean; seed: number; resamples: number }) => {
		const { precisionCommand } = await import('./commands/precision.ts');
		set(await precisionCommand({ ...flags, id, sessionsDir: resolveSessionsDir(flags.sessionsDir), json: !!flags.json }));
	});

program
	.command('import')
	.description("import the BooookScore authors' released files into one collection session, to score, browse and validate")
	.argument('<format>', 'the files\' format: booookscore')
	.option('--summaries <file>', "the authors' summaries JSON ({ book: summary })")
	.option('--annotations <file>', "the authors' model annotations of those summaries (needs --summaries)")
	.option('--intermediate <file>', "an intermediate run (hierarchical summaries_dict or incremental list); its final summaries are imported")
	.option('--human <file>', "the authors' human annotations JSON (summary-*.json)")
	.option('--validation <file>', "the authors' precision study JSON (annotations-gpt4-4096-inc.json format)")
	.option('--session <id>', 'name the new session (default: title-date-time-random)')
	.addOption(sessionsDirOption())
	.option('--json', 'print what was imported as one JSON object')
	.action(async (format: string, flags: { summaries?: string; annotations?: string; intermediate?: string; human?: string; validation?: string; session?: string; sessionsDir?: string; json?: boolean }) => {
		const { importCommand } = await import('./commands/import.ts');
		set(await importCommand(format, { ...flags, sessionsDir: resolveSessionsDir(flags.sessionsDir), json: !!flags.json }));
	});

program
	.command('validate')
	.description("judge a session's annotations by hand, sentence by sentence (agree, partially, disagree), and add your own (paper Appendix G)")
	.argument('<id>', 'session id (see: booook sessions)')
	.option('--validator <name>', 'your name, stored with every verdict (default: the OS user)')
	.addOption(new Option('--mode <mode>', 'model or human annotations only; blind: both, mixed in a seeded order, sources hidden until the end; sample: a random share of both').choices(['model', 'human', 'blind', 'sample']).default('blind'))
	.option('--fraction <share>', 'with --mode sample: the share of annotations to judge', decimal('--fraction'), 0.2)
	.option('--seed <n>', 'seed of the blind order and of the sample (the same seed continues the same walk)', integer('--seed'), 2024)
	.addOption(sessionsDirOption())
	.action(async (id: string, flags: { validator?: string; mode: string; fraction: number; seed: number; sessionsDir?: string }) => {
		const { validateCommand } = await import('./commands/validate.ts');
		set(await validateCommand(resolveSessionsDir(flags.sessionsDir), id, { ...flags, sessionsDir: flags.sessionsDir }));
	});

program
	.command('report')
	.description('results of a session: BooookScore from model and human annotations, precision per validator with intervals over books, agreement, error types, per book')
	.argument('<id>', 'session id (see: booook sessions)')
	.addOption(sessionsDirOption())
	.option('--seed <n>', 'seed of the bootstrap', integer('--seed'), 2024)
	.option('--resamples <n>', 'bootstrap resamples', integer('--resamples'), 2000)
	.option('--json', 'print { booookscore: { model, human }, precision: { validator: { human, model } }, agreement, books, ... }')
	.action(async (id: string, flags: { sessionsDir?: string; seed: number; resamples: number; json?: boolean }) => {
		const { reportCommand } = await import('./commands/report.ts');
		set(await reportCommand(resolveSessionsDir(flags.sessionsDir), id, { json: !!flags.json, seed: flags.seed, resamples: flags.resamples }));
	});

try {
	if (process.argv.length <= 2) {
		if (process.stdin.isTTY && process.stdout.isTTY) {
			const { homeInteractive } = await import('./commands/execute.ts');
			exitCode = await homeInteractive({ sessionsDir: resolveSessionsDir() });
		} else program.outputHelp();
	} else {
		await program.parseAsync(process.argv);
	}
} catch (error) {
	if (error instanceof CommanderError) {
		// Help and version are not errors; everything else commander rejects is a usage error.
		exitCode = error.exitCode === 0 ? 0 : 2;
	} else if (error instanceof UserError) {
		output(process.stderr).line(`booook: ${error.message}`);
		exitCode = error.exitCode;
	} else {
		output(process.stderr).line(`booook: unexpected error: ${errorMessage(error)}`);
		if (process.env.BOOOOK_DEBUG) output(process.stderr).line(String((error as Error).stack));
		exitCode = 1;
	}
}
process.exitCode = exitCode;
