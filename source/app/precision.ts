import { counted } from '../format/count.ts';
import { badInput } from '../errors.ts';
import { flag, joined, next, said } from '../program.ts';
import { seededRandom } from '../score/bootstrap.ts';
import { convertPrecisionStudy } from '../score/formats.ts';
import { judgedItems, precisionBySource, type JudgedItem } from '../score/precision.ts';
import { sessionJudgedItems, validatorsOf } from '../score/session-precision.ts';
import { blindWalksUnderWay } from '../score/validation.ts';
import { Session } from '../store/session.ts';
import { readDataFile } from './data-files.ts';

/** `booook precision`: the precision of annotations from a session's verdicts or the authors' validation file. */

export interface PrecisionSource {
	/** A session whose judgments are counted. */
	id?: string;
	/** Or the authors' validation file, read directly. */
	validation?: string;
	/** Whose verdicts count (sessions only); needed when more than one validator judged. */
	validator?: string;
	sessionsDir?: string;
	seed: number;
	resamples: number;
}

/**
 * Precision by annotation source with bootstrap intervals over books, and `heading`: whose verdicts
 * in which session they are (null for a validation file). A validator on an unfinished blind walk
 * has both sources pooled, which would otherwise tell them which annotations were whose.
 */
export async function precision(opts: PrecisionSource) {
	if (opts.id !== undefined && opts.validation)
		throw badInput(said`give a session ID or ${flag('--validation', 'FILE')}, not both`);
	let items: JudgedItem[];
	let heading: string | null = null;
	if (opts.id !== undefined) {
		if (!opts.sessionsDir) throw new Error('precisionCommand: a session needs sessionsDir');
		const { data } = await Session.snapshot(opts.sessionsDir, opts.id);
		const validator = chooseValidator(opts.id, validatorsOf(data), opts.validator);
		items = sessionJudgedItems(data, validator);
		if (items.length === 0)
			throw badInput(
				`session "${opts.id}": ${validator} judged no confusing annotation, so there is no precision to compute`,
			);
		heading = `verdicts of ${validator} in session ${opts.id}`;
		// Precision by source would tell a validator on a blind walk which annotations were whose.
		const walk = blindWalksUnderWay(data).get(validator);
		if (walk) {
			items = items.map((i) => ({ ...i, source: 'pooled' }));
			heading += ` (blind walk, ${walk.judged}/${walk.total} judged: both sources pooled until it is done)`;
		}
	} else if (opts.validation) {
		if (opts.validator)
			throw badInput(
				said`${flag('--validator')} picks verdicts in a session; a validation file has one set of verdicts`,
			);
		items = judgedItems(await readDataFile(opts.validation, convertPrecisionStudy, flag('--validation')));
	} else {
		throw badInput(
			joined(
				said`nothing to judge; give a session ID (see: ${next('sessions')}) or the validation file `,
				said`with ${flag('--validation', 'FILE')} (the authors' annotations-gpt4-4096-inc.json format)`,
			),
		);
	}
	return {
		heading,
		bySource: precisionBySource(items, { random: seededRandom(opts.seed), resamples: opts.resamples }),
	};
}

/** The validator whose verdicts count: the one asked for, or the only one there is. */
function chooseValidator(id: string, validators: readonly string[], wanted: string | undefined): string {
	const list = validators.map((v) => JSON.stringify(v)).join(', ');
	if (validators.length === 0) {
		throw badInput([
			`session "${id}" has no verdicts yet; validate its annotations first, or import the authors' study with: `,
			next('import', 'booookscore --validation FILE'),
		]);
	}
	if (wanted !== undefined) {
		if (validators.includes(wanted)) return wanted;
		throw badInput(
			`session "${id}" has no verdicts from ${JSON.stringify(wanted)}; its validators are ${list}`,
		);
	}
	if (validators.length === 1) return validators[0]!;
	throw badInput(
		said`session "${id}" has verdicts from ${counted(validators.length, 'validator')} (${list}); choose one with ${flag('--validator', 'NAME')}`,
	);
}
