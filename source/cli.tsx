import { resolveSessionsDir } from './config.ts';
import { existsSync, readFileSync } from 'node:fs';
import { Command, CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { UserError, errorMessage } from './errors.ts';
import type { Exit } from './commands/flags.ts';
import { invocation } from './commands/invocation.ts';
import { output } from './commands/output.ts';
import { say } from './program.ts';
import { sessionPath } from './store/dirs.ts';
import { describeFsError } from './store/disk.ts';

/** argv -> one command. Each command reports its exit code: 0 done, 1 run failed, 2 bad input or usage. */

/**
 * The sub-commands in the order help lists them, each spec beside its handler. Only the module of
 * the command named is loaded (each pulls in what its handler needs), so a command starts without
 * loading every other one.
 */
const COMMANDS = {
	run: () => import('./commands/run.ts'),
	resume: () => import('./commands/resume.ts'),
	plan: () => import('./commands/plan.ts'),
	sessions: () => import('./commands/sessions.ts'),
	show: () => import('./commands/show.ts'),
	export: () => import('./commands/export.ts'),
	score: () => import('./commands/score.ts'),
	precision: () => import('./commands/precision.ts'),
	import: () => import('./commands/import.ts'),
	validate: () => import('./commands/validate.ts'),
	report: () => import('./commands/report.ts'),
	evidence: () => import('./commands/evidence.ts'),
	coverage: () => import('./commands/coverage.ts'),
	faithfulness: () => import('./commands/faithfulness.ts'),
	memory: () => import('./commands/memory.ts'),
	study: () => import('./commands/study.ts'),
	compare: () => import('./commands/compare.ts'),
} satisfies Record<string, () => Promise<{ spec: (exit: Exit, program: string) => CommandUnknownOpts }>>;
type Name = keyof typeof COMMANDS;
const NAMES = Object.keys(COMMANDS) as Name[];

/**
 * The commands argv can reach: the one it names, else `run` (the default: `booook BOOK`), and all
 * of them for the help that lists them.
 */
function reachable(argv: readonly string[]): Name[] {
	const first = argv[2];
	if (
		first === undefined ||
		first === 'help' ||
		first === '-h' ||
		first === '--help' ||
		homeFolder(argv) !== undefined
	)
		return NAMES;
	return Object.hasOwn(COMMANDS, first) ? [first as Name] : ['run'];
}

/**
 * The home screen's sessions folder when argv asks for the home screen: nothing (null: the default
 * folder) or only `--sessions-dir DIR`. Undefined for anything else.
 */
function homeFolder(argv: readonly string[]): string | null | undefined {
	const rest = argv.slice(2);
	if (rest.length === 0) return null;
	if (rest.length === 2 && rest[0] === '--sessions-dir') return rest[1];
	if (rest.length === 1 && rest[0]!.startsWith('--sessions-dir='))
		return rest[0]!.slice('--sessions-dir='.length);
	return undefined;
}

/**
 * A first word that is neither a command nor a file but close to a command's name ("sesions"): the
 * usage error for it, with the command commander suggests (as it does for a mistyped flag).
 * Undefined otherwise: any other word is a book for the default command, `run`.
 */
function mistypedCommand(argv: readonly string[]): string | undefined {
	const first = argv[2];
	if (first === undefined || first.startsWith('-') || Object.hasOwn(COMMANDS, first) || existsSync(first))
		return undefined;
	const probe = new Command().exitOverride().configureOutput({ writeErr: () => {}, outputError: () => {} });
	for (const name of NAMES) probe.command(name);
	try {
		probe.parse([first], { from: 'user' });
	} catch (error) {
		const meant = /Did you mean (\S+)\?/u.exec(errorMessage(error))?.[1];
		if (meant) return `'${first}' is neither a command nor a book file (did you mean ${meant}?)`;
	}
	return undefined;
}

/** booook's own version, from its package.json. */
function packageVersion(): string {
	return (
		JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
	).version;
}

/** Commander's message ("error: ...", sometimes with a "(Did you mean ...?)" line) on one line. */
function usageError(text: string): string {
	return text
		.replace(/^error: /u, '')
		.replace(/\s*\n\s*/gu, ' ')
		.trim();
}

let exitCode = 0;
const exit: Exit = (code) => {
	exitCode = code;
};

// Every command line booook prints starts the way this process was started: each command is given it.
const started = invocation(process.env);

const program = new Command(started)
	.version(packageVersion(), '-V, --version', 'print the version and exit')
	.description(
		"Summarize books longer than a model's context (BooookScore, ICLR 2024): hierarchical merging or incremental updating.\n" +
			'Without an API key the offline extractive baseline (TextRank, not an LLM) is used.',
	)
	// Every message goes through the one output module; a usage error is one line, like every other error.
	.configureOutput({
		writeOut: (text) => output(process.stdout).text(text),
		writeErr: (text) => output(process.stderr).text(text),
		outputError: (text) =>
			output(process.stderr).line(`booook: ${usageError(text)} (run with --help for usage)`),
	})
	.exitOverride();

// The command that ran, so that an error of the file system it met can be placed in its session.
let acting: CommandUnknownOpts | null = null;
program.hook('preAction', (_program, command) => {
	acting = command;
});

// The command's work still waits on something, and nothing is left that could settle it: Node would
// end the process with code 13 and no message. A bug, so it is said as one, on one line.
let settled = false;
process.once('beforeExit', () => {
	if (settled) return;
	const name = (acting as CommandUnknownOpts | null)?.name() ?? 'booook';
	output(process.stderr).line(
		`booook: unexpected error: ${name} stopped with its work unfinished, waiting on something that ` +
			`can no longer happen (a bug in booook; please report it); what was saved is kept, and the same command continues it`,
	);
	process.exitCode = 1;
});

// A reader that stops early (`booook show ID | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
	if (error.code === 'EPIPE') process.exit(exitCode);
	throw error;
});

try {
	const names = reachable(process.argv);
	const modules = await Promise.all(names.map((name) => COMMANDS[name]()));
	// A command made on its own takes the program's output and exit settings only when told to.
	modules.forEach(({ spec }, i) =>
		program.addCommand(spec(exit, started).copyInheritedSettings(program), { isDefault: names[i] === 'run' }),
	);
	const home = homeFolder(process.argv);
	const mistyped = mistypedCommand(process.argv);
	if (mistyped !== undefined) {
		output(process.stderr).line(`booook: ${mistyped} (run with --help for usage)`);
		exitCode = 2;
	} else if (home !== undefined) {
		if (process.stdin.isTTY && process.stdout.isTTY) {
			const { homeInteractive } = await import('./commands/home.ts');
			exitCode = await homeInteractive({ sessionsDir: resolveSessionsDir(home), program: started });
		} else program.outputHelp();
	} else {
		await program.parseAsync(process.argv);
	}
} catch (error) {
	// A file of a session (or the sessions dir) that the file system refused, where no layer nearer the failure said so.
	const described =
		error instanceof CommanderError || error instanceof UserError
			? null
			: describeFsError(error, sessionFolder(acting));
	if (error instanceof CommanderError) {
		// Help and version are not errors; everything else commander rejects is a usage error.
		exitCode = error.exitCode === 0 ? 0 : 2;
	} else if (error instanceof UserError || described) {
		const shown = described ?? (error as UserError);
		output(process.stderr).line(`booook: ${oneLine(say(shown.said, started))}`);
		if (described && process.env.BOOOOK_DEBUG) output(process.stderr).line(String((error as Error).stack));
		exitCode = shown.exitCode;
	} else {
		output(process.stderr).line(`booook: unexpected error: ${oneLine(errorMessage(error))}`);
		if (process.env.BOOOOK_DEBUG) output(process.stderr).line(String((error as Error).stack));
		exitCode = 1;
	}
}
settled = true;
process.exitCode = exitCode;

/** The folder of the session the command was given (`run` names it with --session), if it names one. */
function sessionFolder(command: CommandUnknownOpts | null): string | null {
	if (!command) return null;
	const opts = command.opts() as { sessionsDir?: string; session?: string };
	const id = command.name() === 'run' ? opts.session : command.args[0];
	if (typeof id !== 'string') return null;
	try {
		return sessionPath(resolveSessionsDir(opts.sessionsDir), id);
	} catch {
		return null;
	}
}

/** An error is one line: a message that quotes a file (JSON.parse shows the text near the fault) keeps its words, not its line breaks. */
function oneLine(message: string): string {
	return message.replace(/\s*[\r\n]+\s*/gu, ' ');
}
