import { Command } from '@commander-js/extra-typings';
import { badInput } from '../errors.ts';
import { seededRandom } from '../score/bootstrap.ts';
import { convertPrecisionStudy } from '../score/formats.ts';
import { judgedItems, precisionBySource, type JudgedItem } from '../score/precision.ts';
import { sessionJudgedItems, validatorsOf } from '../score/session-precision.ts';
import { blindWalksUnderWay } from '../score/validation.ts';
import { Session } from '../store/session.ts';
import { readDataFile } from './data-files.ts';
import { output, type Stream } from './output.ts';
import { resolveSessionsDir } from '../store/session.ts';
import { sessionsDirOption, withBootstrapOptions, type Exit } from './flags.ts';
import { commandLine } from '../program.ts';
import { percentNumber } from '../format/percent.ts';

export const spec = (exit: Exit) =>
	withBootstrapOptions(
		new Command('precision')
			.description(
				"precision of human and model annotations from a session's verdicts or a validation file (paper Appendix G), with bootstrap intervals over books",
			)
			.argument('[id]', `session id (see: ${commandLine('sessions')})`)
			.option('--validation <file>', "the authors' validation JSON (annotations-gpt4-4096-inc.json format)")
			.option(
				'--validator <name>',
				'whose verdicts count in the session (needed when more than one person or study judged)',
			)
			.addOption(sessionsDirOption()),
	)
		.option('--json', 'print { human: { precision, strict, n, ci }, model: { ... } }')
		.action(async (id, flags) => {
			exit(
				await precisionCommand({
					...flags,
					id,
					sessionsDir: resolveSessionsDir(flags.sessionsDir),
					json: !!flags.json,
				}),
			);
		});

export interface PrecisionOptions {
	/** A session whose judgments are counted. */
	id?: string;
	/** Or the authors' validation file, read directly. */
	validation?: string;
	/** Whose verdicts count (sessions only); needed when more than one validator judged. */
	validator?: string;
	sessionsDir?: string;
	json: boolean;
	seed: number;
	resamples: number;
	stdout?: Stream;
}

/**
 * `booook precision (ID | --validation F)`: per annotation source, precision (Agree + Partially
 * agree over judged), strict precision (Agree only), counts, and 95% bootstrap intervals over books
 * (a session's summaries). Both inputs go through the same computation and printing, so a session
 * imported from a validation file gives exactly the file's numbers.
 */
export async function precisionCommand(opts: PrecisionOptions): Promise<number> {
	if (opts.id !== undefined && opts.validation)
		throw badInput('give a session ID or --validation FILE, not both');
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
			throw badInput('--validator picks verdicts in a session; a validation file has one set of verdicts');
		items = judgedItems(await readDataFile(opts.validation, convertPrecisionStudy, '--validation'));
	} else {
		throw badInput(
			`nothing to judge; give a session ID (see: ${commandLine('sessions')}) or the validation file with --validation FILE (the authors' annotations-gpt4-4096-inc.json format)`,
		);
	}
	const bySource = precisionBySource(items, { random: seededRandom(opts.seed), resamples: opts.resamples });
	const result = Object.fromEntries(
		[...bySource].map(([source, p]) => [
			source,
			{
				precision: percentNumber(p.precision),
				strict: percentNumber(p.strict),
				n: p.judged,
				agree: p.agree,
				partial: p.partial,
				disagree: p.disagree,
				books: p.books,
				ci: [percentNumber(p.precisionInterval.low), percentNumber(p.precisionInterval.high)],
				strict_ci: [percentNumber(p.strictInterval.low), percentNumber(p.strictInterval.high)],
			},
		]),
	);
	const out = output(opts.stdout ?? process.stdout);
	if (opts.json) {
		out.json(result);
		return 0;
	}
	if (heading) out.line(heading);
	for (const [source, r] of Object.entries(result)) {
		out.line(
			`${source.padEnd(6)} precision ${r.precision.toFixed(1)}% [${r.ci[0]!.toFixed(1)}, ${r.ci[1]!.toFixed(1)}], strict ${r.strict.toFixed(1)}% [${r.strict_ci[0]!.toFixed(1)}, ${r.strict_ci[1]!.toFixed(1)}]; ${r.n} judged in ${r.books} books (${r.agree} agree, ${r.partial} partially, ${r.disagree} disagree)`,
		);
	}
	return 0;
}

/** The validator whose verdicts count: the one asked for, or the only one there is. */
function chooseValidator(id: string, validators: readonly string[], wanted: string | undefined): string {
	const list = validators.map((v) => JSON.stringify(v)).join(', ');
	if (validators.length === 0) {
		throw badInput(
			`session "${id}" has no verdicts yet; validate its annotations first, or import the authors' study with: ${commandLine('import booookscore --validation FILE')}`,
		);
	}
	if (wanted !== undefined) {
		if (validators.includes(wanted)) return wanted;
		throw badInput(
			`session "${id}" has no verdicts from ${JSON.stringify(wanted)}; its validators are ${list}`,
		);
	}
	if (validators.length === 1) return validators[0]!;
	throw badInput(
		`session "${id}" has verdicts from ${validators.length} validators (${list}); choose one with --validator NAME`,
	);
}
