/**
 * Command lines in messages ("Continue with: booook resume ID"). Below commands/, a message names a
 * command as data (`Next`, inside a `Said`); only the edge, which knows how this process was started
 * (commands/invocation.ts: `booook` when that is on the PATH, else `npm --prefix ROOT start --` or
 * `node ROOT/bin/booook.js`), says it, so that a line pasted into the shell runs. A flag a message
 * names as the fix ("choose another --session") is data the same way (`Flag`), so the edge decides
 * how it reads.
 */

/** booook's commands, as cli.tsx names them. */
export type CommandName =
	| 'run'
	| 'resume'
	| 'plan'
	| 'sessions'
	| 'show'
	| 'export'
	| 'score'
	| 'precision'
	| 'import'
	| 'validate'
	| 'report'
	| 'evidence'
	| 'coverage'
	| 'faithfulness'
	| 'memory'
	| 'study'
	| 'compare';

/** A booook command a message names: `resume` with `ID --sessions-dir DIR`, its words after the program. */
export interface Next {
	readonly command: CommandName;
	/** The words after the command's name, each a shell word already; '' when there are none. */
	readonly args: string;
}

export function next(command: CommandName, args = ''): Next {
	return { command, args };
}

/** A flag a message names as the fix: `--session`, or with the value to give it, `--session ID`. */
export interface Flag {
	readonly flag: `--${string}`;
	/** The value to give it, a shell word already (or a placeholder like `DIR`); absent when the message names the flag alone. */
	readonly value?: string;
}

export function flag(name: `--${string}`, value?: string): Flag {
	return value === undefined ? { flag: name } : { flag: name, value };
}

/** A message that may name commands and flags: its text and the commands and flags, in order. */
export type Said = string | readonly (string | Next | Flag)[];

/** A message naming commands or flags, written as a template: said`resume it with: ${next('resume', id)}`. */
export function said(strings: TemplateStringsArray, ...values: readonly unknown[]): Said {
	const parts: (string | Next | Flag)[] = [strings[0]!];
	values.forEach((value, i) => {
		if (isNext(value) || isFlag(value)) parts.push(value);
		// A message inside a message keeps the commands it names.
		else if (Array.isArray(value)) parts.push(...(value as Exclude<Said, string>));
		else parts.push(String(value));
		parts.push(strings[i + 1]!);
	});
	return parts;
}

/** Messages said one after the other, as one: a long message written in parts, as `+` joins strings. */
export function joined(...parts: readonly Said[]): Said {
	return parts.flatMap((part) => (typeof part === 'string' ? [part] : part));
}

/** How the message reads when booook is started as `program`. */
export function say(message: Said, program: string): string {
	if (typeof message === 'string') return message;
	return message
		.map((part) =>
			typeof part === 'string' ? part : 'flag' in part ? flagWords(part) : commandLine(program, part),
		)
		.join('');
}

/** A flag as a command line gives it: `--session ID`. */
export function flagWords(named: Flag): string {
	return named.value === undefined ? named.flag : `${named.flag} ${named.value}`;
}

/** The name booook goes by when it is on the PATH: how a message reads where the edge has not said it. */
export const BOOOOK = 'booook';

/** A booook command line to print: `commandLine('booook', 'resume ID')` is `booook resume ID`. */
export function commandLine(program: string, command: string | Next): string {
	if (typeof command === 'string') return `${program} ${command}`;
	return `${program} ${command.command}${command.args === '' ? '' : ` ${command.args}`}`;
}

/** One word for a POSIX shell: as it is when it holds no character the shell treats specially, else single-quoted. */
export function shellWord(text: string): string {
	return /^[\w@%+=:,./-]+$/u.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

function isNext(value: unknown): value is Next {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as Next).command === 'string' &&
		typeof (value as Next).args === 'string'
	);
}

function isFlag(value: unknown): value is Flag {
	return typeof value === 'object' && value !== null && typeof (value as Flag).flag === 'string';
}
