import { resolve } from 'node:path';
import { readSummary } from '../book/summary.ts';
import { finalEvidence } from '../evidence/evidence.ts';
import { PassageIndex } from '../evidence/rank.ts';
import { bookMatch } from '../evidence/support.ts';
import { flag, said } from '../program.ts';
import { checkSessionId } from '../store/dirs.ts';
import { Session } from '../store/session.ts';
import { IMPORTED_MODEL, importedRun } from '../summarize/imported.ts';
import { countTokens, countWords } from '../text/tokens.ts';
import { loadBook } from './run.ts';

/** `booook import summary`: a summary made elsewhere, with its book, as a session to evaluate. */

export interface ImportSummary {
	book: string;
	summary: string;
	session?: string;
	sessionsDir: string;
}

/**
 * Reads and checks the book and the summary before the session exists, then creates it whole: a
 * bad file or a taken id leaves nothing behind. The run is recorded as the offline provider's, with
 * the model `imported`, so nothing would call a model for it and `score` picks its annotator as for
 * the extractive baseline. Returns the session made (closed), and how many of the summary's
 * sentences find support in the book (`match.foreign`: so few that it reads as another book's).
 */
export async function importSummary(opts: ImportSummary) {
	if (opts.session !== undefined) checkSessionId(opts.session);
	const text = await readSummary(opts.summary, said`${flag('--summary', opts.summary)}`);
	// The default chunking of a run: evidence and coverage place passages by these chunks.
	const loaded = await loadBook(opts.book, { provider: 'extractive', model: IMPORTED_MODEL, clean: false });
	const { config, chunks, book } = loaded;
	const run = importedRun(
		config,
		chunks,
		{
			text,
			tokens: countTokens(text, config.encoding),
			words: countWords(text),
			file: resolve(opts.summary),
		},
		new Date(),
	);
	// A summary of another book (a wrong --book) would be imported without a word otherwise: its
	// sentences find almost nothing of what they say in this book.
	const index = new PassageIndex(loaded.loaded.text, chunks);
	const match = bookMatch((finalEvidence(run, index) ?? []).map((e) => e.support));
	const session = await Session.create(opts.sessionsDir, {
		id: opts.session,
		book,
		text: loaded.loaded.text,
		run,
	});
	await session.close();
	return { session, title: book.title, chunks: chunks.length, words: countWords(text), match };
}
