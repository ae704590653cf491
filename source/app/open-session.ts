import { checkBaseUrl, keyVariable } from '../llm/base-url.ts';
import { awaitedInBatches } from '../store/batch-journal.ts';
import { bookSession, Session, type BookSessionData } from '../store/session.ts';
import { runFinished } from '../summarize/graph.ts';
import { prepareSession, sessionRun, type PrepareOptions, type SessionRun } from './run.ts';
import { flag, said, type Said } from '../program.ts';

/**
 * Opening a saved session to show or continue its run: `booook resume ID` and the home screen's
 * enter and r go through this one path, so both refuse, warn and update alike.
 */

/** Requests a study left in provider batches that are not answered yet. */
export interface BatchesAwaited {
	kind: 'batches';
	id: string;
	requests: number;
	/** The provider's batch ids, each once, in the order first sent. */
	batches: readonly string[];
}

/** Why a session is not opened; the caller words it for where it is shown. */
export type OpenRefusal =
	| BatchesAwaited
	/** A summary made elsewhere: no plan and no model, so nothing to run. */
	| { kind: 'imported'; id: string; file: string };

export interface OpenInput extends PrepareOptions {
	/** Make again, streamed at the full price, the requests a study left in provider batches. */
	abandonBatches?: boolean;
	/** The session's new server address, saved with it before it runs. */
	baseUrl?: string;
}

export interface OpenEvents {
	/**
	 * Saves of this session were lost before it was opened (one line, see `Session.lostWork`): told
	 * before anything runs; resolves whether to go on.
	 */
	lostWork(warning: Said): boolean | Promise<boolean>;
}

export type OpenResult =
	| { kind: 'refused'; reason: OpenRefusal }
	/** `lostWork` said not to go on: the session was closed before anything ran. */
	| { kind: 'declined' }
	| { kind: 'opened'; opened: OpenedSession };

/** A session opened and locked: the caller closes it. */
export interface OpenedSession {
	readonly session: Session<BookSessionData>;
	readonly book: string;
	/** The run has nothing left to make (it still opens: its tree, versions, edits and scoring). */
	readonly finished: boolean;
	/** Saves the new base URL and sets up the model client: what running it needs. */
	prepare(): Promise<SessionRun>;
	close(): Promise<void>;
}

/**
 * The requests of session `id` still out in provider batches, or null. Making them again would pay
 * for them twice, so commands that make a session's calls refuse unless told to abandon them.
 */
export async function batchesAwaited(dir: string, id: string): Promise<BatchesAwaited | null> {
	const awaited = await awaitedInBatches(dir, id);
	if (awaited.length === 0) return null;
	return {
		kind: 'batches',
		id,
		requests: awaited.length,
		batches: [...new Set(awaited.map((e) => e.batch))],
	};
}

export async function openSession(
	dir: string,
	id: string,
	input: OpenInput,
	events: OpenEvents,
): Promise<OpenResult> {
	// Before the session is opened (which saves it): a bad address or a refusal changes nothing.
	if (input.baseUrl) checkBaseUrl(input.baseUrl, said`${flag('--base-url')}`, keyVariable('extractive'));
	if (!input.abandonBatches) {
		const batches = await batchesAwaited(dir, id);
		if (batches) return { kind: 'refused', reason: batches };
	}
	const opened = await Session.open(dir, id);
	try {
		const session = bookSession(opened);
		const { imported } = session.data.run;
		if (imported) {
			await opened.close();
			return { kind: 'refused', reason: { kind: 'imported', id, file: imported.file } };
		}
		// Before anything runs: it is measured against the state as it was read.
		const lost = await session.lostWork();
		if (lost !== null && !(await events.lostWork(lost))) {
			await opened.close();
			return { kind: 'declined' };
		}
		const book = await session.bookText();
		return {
			kind: 'opened',
			opened: {
				session,
				book,
				finished: runFinished(session.data.run),
				prepare: async () => {
					if (input.baseUrl)
						await session.updateRun({ config: { ...session.data.run.config, baseUrl: input.baseUrl } });
					return sessionRun(session, await prepareSession(session, book, input), input);
				},
				close: () => opened.close(),
			},
		};
	} catch (error) {
		await opened.close();
		throw error;
	}
}
