import { readBook } from '../book/read.ts';
import { makeConfig, type ConfigInput } from '../config.ts';
import type { Book } from '../domain.ts';
import { newRun } from '../summarize/run.ts';
import { Session } from '../store/session.ts';
import { chunkText } from '../text/chunk.ts';
import { countTokens } from '../text/tokens.ts';
import { badInput } from '../errors.ts';
import { loadTemplates } from '../prompts/load.ts';
import { plannerFor } from '../summarize/run.ts';
import { execute, prepare, runInteractive, type InteractiveOptions } from './execute.ts';

export interface RunOptions extends InteractiveOptions {
	/** Open the live terminal app (a TTY and no --headless/--json); else progress on stderr. */
	interactive?: boolean;
	config: ConfigInput;
	session?: string;
	sessionsDir: string;
}

/** Reads and chunks a book and checks the configuration: everything `run` and `plan` share. */
export async function loadBook(path: string, input: ConfigInput) {
	const loaded = await readBook(path);
	const config = makeConfig(input);
	const chunks = chunkText(loaded.text, config.chunkSize, config.encoding);
	const templates = await loadTemplates(config.prompts);
	const problem = plannerFor(config.method).windowProblem(newRun(config, chunks), { config, templates, book: loaded.text, tokens: (t) => countTokens(t, config.encoding) });
	if (problem) throw badInput(problem);
	const book: Book = { title: loaded.title, sha256: loaded.sha256, source: loaded.source, chars: loaded.text.length, tokens: chunks.reduce((s, c) => s + c.tokens, 0) };
	return { loaded, config, chunks, book, templates };
}

/**
 * `booook run BOOK`: a new session, then the run. Every check that can fail on bad input (book,
 * options, prompts, API key) happens before the session directory is created.
 */
export async function runCommand(path: string, opts: RunOptions): Promise<number> {
	const { loaded, config, chunks, book, templates } = await loadBook(path, opts.config);
	const prepared = await prepare(config, loaded.text, opts, templates);
	const session = await Session.create(opts.sessionsDir, { id: opts.session, book, text: loaded.text, run: newRun(config, chunks) });
	try {
		return await (opts.interactive ? runInteractive(session, prepared, opts) : execute(session, prepared, opts));
	} finally {
		await session.close();
	}
}
