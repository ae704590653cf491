import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { UserError } from '../../source/errors.ts';

/** A one-line usage error (exit 2) whose message matches `pattern` and does not show `secret`. */
export function usageError(pattern: RegExp, secret?: string) {
	return (error: unknown) => {
		assert.ok(error instanceof UserError, String(error));
		assert.equal(error.exitCode, 2);
		assert.match(error.message, pattern);
		assert.ok(!error.message.includes('\n'), error.message);
		if (secret) assert.ok(!error.message.includes(secret), `the message shows the secret: ${error.message}`);
		return true;
	};
}

/** A stream that keeps what is written to it, as text. */
export function capture() {
	let text = '';
	const stream = new Writable({
		decodeStrings: false,
		write(chunk, _encoding, done) {
			text += String(chunk);
			done();
		},
	});
	return { stream, text: () => text };
}
