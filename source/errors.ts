/**
 * Errors a user can act on. `exitCode` follows the CLI contract: 2 for bad input or usage, 1 for a
 * run that failed. The message is one line that names the problem and the fix.
 */
export class UserError extends Error {
	constructor(
		message: string,
		readonly exitCode: 1 | 2 = 2,
	) {
		super(message);
		this.name = 'UserError';
	}
}

/** Bad input or usage: exit code 2, nothing on disk touched. */
export function badInput(message: string): UserError {
	return new UserError(message, 2);
}

export function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
