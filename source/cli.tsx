import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { ConfigInput } from './config.ts';
import { DEFAULTS } from './config.ts';
import type { ProviderName } from './domain.ts';
import { UserError, errorMessage } from './errors.ts';
import { defaultModel, defaultProvider } from './llm/create.ts';
import { resolveSessionsDir } from './store/session.ts';
import { ENCODINGS } from './text/tokens.ts';
import { sanitize } from './text/sanitize.ts';

/** argv -> one command. Each command returns its exit code: 0 done, 1 run failed, 2 bad input or usage. */

const program = new Command('booook')
	.description(
		'Summarize books longer than a model\'s context (BooookScore, ICLR 2024): hierarchical merging or incremental updating.\n' +
			'Without an API key the offline extractive baseline (TextRank, not an LLM) is used.',
	)
	.showHelpAfterError('(run with --help for usage)')
	.exitOverride();

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
		prompts: flags.prompts ?? null,
	};
}

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
		.option('--headless', 'progress on stderr, final summary on stdout (currently how every run works)')
		.option('--json', 'print engine events as JSON lines on stdout'),
).action(async (book: string, flags: RunFlags & { session?: string; sessionsDir?: string; json?: boolean }) => {
	const { runCommand } = await import('./commands/run.ts');
	set(await runCommand(book, { config: configInput(flags), session: flags.session, sessionsDir: resolveSessionsDir(flags.sessionsDir), json: !!flags.json, prices: flags.prices }));
});

program
	.command('resume')
	.description('continue a session that was stopped, killed or failed; finished calls are not made again')
	.argument('<id>', 'session id (see: booook sessions)')
	.addOption(sessionsDirOption())
	.option('--headless', 'progress on stderr, final summary on stdout (currently how every run works)')
	.option('--json', 'print engine events as JSON lines on stdout')
	.option('--base-url <url>', "replace the session's server address (for example after it moved); saved with the session")
	.option('--prices <file>', 'price table JSON (default: $BOOOOK_PRICES, else ~/.config/booook/prices.json)')
	.action(async (id: string, flags: { sessionsDir?: string; json?: boolean; prices?: string; baseUrl?: string }) => {
		const { resumeCommand } = await import('./commands/resume.ts');
		set(await resumeCommand(resolveSessionsDir(flags.sessionsDir), id, { json: !!flags.json, prices: flags.prices, baseUrl: flags.baseUrl }));
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
	.description("write a session's summaries in the BooookScore authors' JSON formats")
	.argument('<id>', 'session id')
	.addOption(new Option('--format <format>', 'output format').choices(['booookscore']).default('booookscore'))
	.option('--intermediate', 'every level (hierarchical) or running summary (incremental), not just the final summary')
	.option('--out <file>', 'write to a file instead of stdout (refuses to replace one)')
	.option('--force', 'with --out: replace an existing file')
	.addOption(sessionsDirOption())
	.action(async (id: string, flags: { format: string; intermediate?: boolean; out?: string; force?: boolean; sessionsDir?: string }) => {
		const { exportCommand } = await import('./commands/export.ts');
		set(await exportCommand(resolveSessionsDir(flags.sessionsDir), id, { format: flags.format, intermediate: !!flags.intermediate, out: flags.out, force: flags.force }));
	});

// A reader that stops early (`booook show ID | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
	if (error.code === 'EPIPE') process.exit(exitCode);
	throw error;
});

program
	.command('score')
	.description('BooookScore of summaries from annotation files, without any model call (annotating with a model is not built yet)')
	.option('--summaries <file>', "the authors' summaries JSON ({ book: summary })")
	.option('--annotations <file>', "the authors' model annotations JSON for those summaries")
	.option('--human <file>', "the authors' human annotations JSON (summary-*.json: each span and relation is one confusing sentence)")
	.option('--json', 'print { booookscore, summaries, sentences, confusing, parse_failures, avg_tokens, types, books }')
	.action(async (flags: { summaries?: string; annotations?: string; human?: string; json?: boolean }) => {
		const { scoreCommand } = await import('./commands/score.ts');
		set(await scoreCommand({ ...flags, json: !!flags.json }));
	});

program
	.command('precision')
	.description('precision of human and model annotations from a validation file (paper Appendix G), with bootstrap intervals over books')
	.option('--validation <file>', "the authors' validation JSON (annotations-gpt4-4096-inc.json format)")
	.option('--seed <n>', 'seed of the bootstrap', integer('--seed'), 2024)
	.option('--resamples <n>', 'bootstrap resamples', integer('--resamples'), 2000)
	.option('--json', 'print { human: { precision, strict, n, ci }, model: { ... } }')
	.action(async (flags: { validation?: string; json?: boolean; seed: number; resamples: number }) => {
		const { precisionCommand } = await import('./commands/precision.ts');
		set(await precisionCommand({ ...flags, json: !!flags.json }));
	});

try {
	if (process.argv.length <= 2) {
		program.outputHelp();
	} else {
		await program.parseAsync(process.argv);
	}
} catch (error) {
	if (error instanceof CommanderError) {
		// Help and version are not errors; everything else commander rejects is a usage error.
		exitCode = error.exitCode === 0 ? 0 : 2;
	} else if (error instanceof UserError) {
		process.stderr.write(`booook: ${sanitize(error.message)}\n`);
		exitCode = error.exitCode;
	} else {
		process.stderr.write(`booook: unexpected error: ${sanitize(errorMessage(error))}\n`);
		if (process.env.BOOOOK_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
		exitCode = 1;
	}
}
process.exitCode = exitCode;
