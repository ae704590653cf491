// In the order of the flags that name their files.
import {
	convertSummaries,
	convertModelAnnotations,
	convertHierarchicalRuns,
	convertIncrementalRuns,
	convertHumanAnnotations,
	convertPrecisionStudy,
	type Converted,
} from '../score/formats.ts';
import { flag, joined, next, said } from '../program.ts';
import { badInput } from '../errors.ts';
import { checkSessionId } from '../store/dirs.ts';
import { importBooookScore, type ImportInput, type IntermediateRuns } from '../score/import-booookscore.ts';
import { Session } from '../store/session.ts';
import { readDataFile } from './data-files.ts';

/** `booook import`: the authors' released files into one collection session. */

/** The files to import (each optional, at least one), and the new session's name and folder. */
export interface ImportFiles {
	summaries?: string;
	annotations?: string;
	intermediate?: string;
	human?: string;
	validation?: string;
	session?: string;
	sessionsDir: string;
}

/**
 * Every file read and converted before the session is created, and the session created whole
 * (`Session.createCollection`), so a bad file or a taken id leaves nothing behind. Returns the
 * session made (closed) and what each file gave.
 */
export async function importFiles(format: string, opts: ImportFiles) {
	if (format !== 'booookscore')
		throw badInput([
			`cannot import format "${format}"; use booookscore (the authors' files) or summary (a summary made elsewhere, with its book: `,
			next('import', 'summary --book BOOK --summary FILE'),
			')',
		]);
	if (opts.annotations && !opts.summaries)
		throw badInput(
			said`${flag('--annotations')} attach to the summaries they annotate; give those with ${flag('--summaries', 'FILE')}`,
		);
	if (!opts.summaries && !opts.intermediate && !opts.human && !opts.validation) {
		throw badInput(
			joined(
				said`nothing to import; give ${flag('--summaries', 'FILE')} [${flag('--annotations', 'FILE')}], `,
				said`${flag('--intermediate', 'FILE')}, ${flag('--human', 'FILE')} or ${flag('--validation', 'FILE')}`,
			),
		);
	}
	if (opts.session !== undefined) checkSessionId(opts.session);

	const input: ImportInput = {};
	if (opts.summaries) {
		input.summaries = {
			file: opts.summaries,
			books: await readDataFile(opts.summaries, convertSummaries, flag('--summaries')),
		};
		if (opts.annotations) {
			input.summaries.annotations = {
				file: opts.annotations,
				books: await readDataFile(opts.annotations, convertModelAnnotations, flag('--annotations')),
			};
		}
	}
	if (opts.intermediate) {
		input.intermediate = {
			file: opts.intermediate,
			...(await readDataFile(opts.intermediate, convertIntermediate, flag('--intermediate'))),
		};
	}
	if (opts.human)
		input.human = {
			file: opts.human,
			books: await readDataFile(opts.human, convertHumanAnnotations, flag('--human')),
		};
	if (opts.validation)
		input.validation = {
			file: opts.validation,
			books: await readDataFile(opts.validation, convertPrecisionStudy, flag('--validation')),
		};

	const imported = importBooookScore(input, new Date().toISOString());
	const session = await Session.createCollection(opts.sessionsDir, {
		id: opts.session,
		title: imported.title,
		sources: imported.sources,
		summaries: imported.summaries,
		annotations: imported.annotations,
		judgments: imported.judgments,
		runs: imported.runs,
	});
	await session.close();
	return { session, imported };
}

/** A hierarchical run file maps books to objects, an incremental one to lists: the first book decides. */
function convertIntermediate(value: unknown): Converted<IntermediateRuns> {
	const first =
		value !== null && typeof value === 'object' && !Array.isArray(value)
			? Object.values(value)[0]
			: undefined;
	if (Array.isArray(first)) {
		const runs = convertIncrementalRuns(value);
		return runs.ok ? { ok: true, value: { method: 'inc', runs: runs.value } } : runs;
	}
	const runs = convertHierarchicalRuns(value);
	return runs.ok ? { ok: true, value: { method: 'hier', runs: runs.value } } : runs;
}
