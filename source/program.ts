/**
 * Command lines in messages ("Continue with: booook resume ID"). Below commands/, a message names a
 * command as data (`Next`, inside a `Said`); only the edge, which knows how this process was started
 * (commands/invocation.ts: `booook` when that is on the PATH, else `npm --prefix ROOT start --` or
 * `node ROOT/bin/booook.js`), says it, so that a line pasted into the shell runs.
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

/** A message that may name commands: its text and the commands, in order. */
export type Said = string | readonly (string | Next)[];

/** A message naming commands, written as a template: said`resume it with: ${next('resume', id)}`. */
export function said(strings: TemplateStringsArray, ...values: readonly unknown[]): Said {
	const parts: (string | Next)[] = [strings[0]!];
	values.forEach((value, i) => {
		if (isNext(value)) parts.push(value);
		// A message inside a message keeps the commands it names.
		else if (Array.isArray(value)) parts.push(...(value as Exclude<Said, string>));
		else parts.push(String(value));
		parts.push(strings[i + 1]!);
	});
	return parts;
}

/** How the message reads when booook is started as `program`. */
export function say(message: Said, program: string): string {
	if (typeof message === 'string') return message;
	return message.map((part) => (typeof part === 'string' ? part : commandLine(program, part))).join('');
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
