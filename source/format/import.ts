import { next, type Next } from '../program.ts';
import { counted } from './count.ts';

/** What `import` prints: what each of the authors' files gave, or the summary imported, and the commands that read the session. */

/** How many unmatched sentences, orphan books or unlocated spans are shown by name. */
const FIRST = 3;

/** What one of the authors' files gave (score/import-booookscore.ts `FileReport`). */
interface FileReport {
	flag: string;
	file: string;
	summaries: number;
	annotations: number;
	confusing: number;
	judgments: number;
	unmatched: readonly { book: string; text: string }[];
	orphans: readonly string[];
	unlocated: readonly { book: string; text: string }[];
	method?: string;
}

/** The authors' files imported (score/import-booookscore.ts `ImportResult`). */
interface Imported {
	title: string;
	sources: readonly string[];
	summaries: readonly unknown[];
	annotations: readonly { source: string }[];
	judgments: readonly unknown[];
	reports: readonly FileReport[];
}

/** What reads an imported collection: report needs no model; `score` would annotate with one every sentence that lacks a model verdict. */
export function importedNext(id: string, where: string, judged: boolean): Next[] {
	return (['report', 'validate', ...(judged ? ['precision' as const] : [])] as const).map((command) =>
		next(command, `${id}${where}`),
	);
}

/** `import booookscore --json`: the session, what it holds, what each file gave, and the commands said in `next`. */
export function importedJson(
	session: { id: string; path: string },
	imported: Imported,
	next: readonly string[],
) {
	return {
		session: session.id,
		dir: session.path,
		title: imported.title,
		sources: imported.sources,
		summaries: imported.summaries.length,
		annotations: {
			model: imported.annotations.filter((a) => a.source === 'model').length,
			human: imported.annotations.filter((a) => a.source === 'human').length,
		},
		judgments: imported.judgments.length,
		files: imported.reports,
		next,
	};
}

/** `import booookscore`'s lines: one per file, then the session and the commands said in `next` (report, validate, precision). */
export function importedLines(id: string, reports: readonly FileReport[], next: readonly string[]): string[] {
	const [report, validate, precision] = next;
	return [
		...reports.map(describe),
		`imported into session ${id}; its results (no model call): ${report}; judge its annotations: ` +
			`${validate}${precision ? `; precision: ${precision}` : ''}`,
	];
}

const quote = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);

/** One line per file: what it gave, and what could not be placed (counted, and the first few named). */
function describe(r: FileReport): string {
	const parts: string[] = [];
	switch (r.flag) {
		case '--summaries':
			parts.push(counted(r.summaries, 'summary', 'summaries'));
			break;
		case '--annotations':
			parts.push(`${counted(r.annotations, 'sentence')} annotated, ${r.confusing} confusing`);
			break;
		case '--intermediate':
			parts.push(
				`${counted(r.summaries, 'final summary', 'final summaries')} with their ${r.method === 'hier' ? 'hierarchical levels' : 'incremental steps'}`,
			);
			break;
		case '--human':
			parts.push(
				`${counted(r.summaries, 'summary', 'summaries')}, ${counted(r.annotations, 'human annotation')} (singles and relations)`,
			);
			break;
		case '--validation':
			parts.push(
				`${counted(r.summaries, 'summary', 'summaries')}, ${counted(r.annotations, 'annotation')}, ${counted(r.judgments, 'verdict')}`,
			);
			break;
	}
	const named = (items: readonly string[]) =>
		`${items.slice(0, FIRST).join(', ')}${items.length > FIRST ? ', ...' : ''}`;
	if (r.unmatched.length > 0) {
		parts.push(
			`${counted(r.unmatched.length, 'annotated sentence')} not found in ${r.unmatched.length === 1 ? 'its summary' : 'their summaries'}, ` +
				`left out (${named(r.unmatched.map((u) => `${u.book}: ${quote(u.text)}`))})`,
		);
	}
	if (r.orphans.length > 0)
		parts.push(
			`${counted(r.orphans.length, 'annotated book')} with no summary, left out (${named(r.orphans)})`,
		);
	if (r.unlocated.length > 0) {
		parts.push(
			`${counted(r.unlocated.length, 'span')} not found in ${r.unlocated.length === 1 ? 'its summary' : 'their summaries'}, ` +
				`kept without a place (${named(r.unlocated.map((u) => `${u.book}: ${quote(u.text)}`))})`,
		);
	}
	return `${r.flag} ${r.file}: ${parts.join('; ')}`;
}

/** A summary imported with its book (app/import-summary.ts `importSummary`). */
interface ImportedSummary {
	session: { id: string; path: string };
	title: string;
	chunks: number;
	words: number;
	match: { sentences: number; supported: number; foreign: boolean };
}

/** What reads an imported summary: evidence, coverage and report make no model call; score and faithfulness ask one. */
export function summaryNext(id: string, where: string): Next[] {
	return (['evidence', 'coverage', 'report', 'score', 'faithfulness'] as const).map((command) =>
		next(command, `${id}${where}`),
	);
}

/** The warning of a summary that finds too little support in the book named with it. */
export function foreignLine(made: ImportedSummary): string {
	return (
		`warning: only ${made.match.supported} of ${counted(made.match.sentences, 'sentence')} of the summary ` +
		`find support in ${JSON.stringify(made.title)} (a quarter of what each says, in one place of ` +
		`the book): if it summarizes another book, import it again with that --book`
	);
}

/** `import summary --json`: the session, the book's size, the summary's support, and the commands said in `next`. */
export function importedSummaryJson(made: ImportedSummary, next: readonly string[]) {
	const { match } = made;
	return {
		session: made.session.id,
		dir: made.session.path,
		title: made.title,
		chunks: made.chunks,
		words: made.words,
		support: { sentences: match.sentences, supported: match.supported, another_book: match.foreign },
		next,
	};
}

/** `import summary`'s lines: what was imported, then the commands said in `next` (see `summaryNext`). */
export function importedSummaryLines(made: ImportedSummary, next: readonly string[]): string[] {
	return [
		`imported a summary of ${counted(made.words, 'word')} of ${JSON.stringify(made.title)} (${counted(made.chunks, 'chunk')}) into session ${made.session.id}`,
		`its evidence (no model call): ${next[0]}`,
		`coverage: ${next[1]}; report: ${next[2]}`,
		`BooookScore: ${next[3]}; faithfulness: ${next[4]}`,
	];
}
