import { BOOOOK, say, type Said } from './program.ts';

/**
 * Errors a user can act on. `exitCode` follows the CLI contract: 2 for bad input or usage, 1 for a
 * run that failed. The message is one line that names the problem and the fix; a fix that is a
 * booook command is named as data (`said`), and the edge says it as booook was started
 * (`userMessage`). `message` reads as it does when booook is on the PATH.
 */
export class UserError extends Error {
	readonly said: Said;

	constructor(
		message: Said,
		readonly exitCode: 1 | 2 = 2,
	) {
		super(say(message, BOOOOK));
		this.name = 'UserError';
		this.said = message;
	}
}

/** Bad input or usage: exit code 2, nothing on disk touched. */
export function badInput(message: Said): UserError {
	return new UserError(message, 2);
}

/** An error's message, its commands said as `program` starts booook. */
export function errorMessage(error: unknown, program: string = BOOOOK): string {
	if (error instanceof UserError) return say(error.said, program);
	return error instanceof Error ? error.message : String(error);
}
