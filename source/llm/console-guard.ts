import { format } from 'node:util';
import { sanitize } from '../text/sanitize.ts';

/**
 * The vendors' SDKs write some of what a server sends straight to the console: the OpenAI SDK
 * prints a stream event it cannot parse with `console.error`, bypassing its own logger (which is
 * off). A server could put escape sequences there that retitle or clear the user's terminal, so
 * once an SDK is in use, what the console prints goes through the sanitizer as everything else does.
 */

let guarded = false;

/** Makes console.log/info/debug/warn/error write sanitized text (idempotent). */
export function guardConsole(): void {
	if (guarded) return;
	guarded = true;
	const write =
		(stream: NodeJS.WriteStream) =>
		(...args: unknown[]) => {
			stream.write(`${sanitize(format(...args))}\n`);
		};
	console.log = write(process.stdout);
	console.info = write(process.stdout);
	console.debug = write(process.stdout);
	console.warn = write(process.stderr);
	console.error = write(process.stderr);
}
