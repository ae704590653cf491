/**
 * How the user starts booook, for every command line it prints ("Continue with: booook resume
 * ID"): `booook` when that is on the PATH, otherwise as this process was started (`npm start --`,
 * `node bin/booook.js`), so that a line pasted into the shell runs. The CLI sets it once as it
 * starts (commands/invocation.ts); where it is not set (tests that call a layer directly) it is
 * `booook`.
 */
let program = 'booook';

export function setProgram(invocation: string): void {
	program = invocation;
}

/** How booook is started, e.g. `npm start --`: commander's name for the usage lines of --help. */
export function programName(): string {
	return program;
}

/** A booook command line to print: `commandLine('resume ID')` is `booook resume ID` when booook is on the PATH. */
export function commandLine(args: string): string {
	return `${program} ${args}`;
}

/** One word for a POSIX shell: as it is when it holds no character the shell treats specially, else single-quoted. */
export function shellWord(text: string): string {
	return /^[\w@%+=:,./-]+$/u.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
