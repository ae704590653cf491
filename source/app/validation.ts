import { userInfo } from 'node:os';
import { badInput } from '../errors.ts';
import { faithfulnessVerdictOn, faithfulnessVerdictsOf } from '../score/faithfulness.ts';
import { WALK_MODES, walkProgress, type WalkMode } from '../score/validation.ts';
import { Session } from '../store/session.ts';
import { sessionEvidence } from './evidence-session.ts';
import { FaithfulnessWalk } from './faithfulness-walk.ts';
import { ValidationWalk } from './validation-walk.ts';
import { flag, said, type Next, type Said } from '../program.ts';

/** `booook validate`: a person's walk over a session's annotations, or over its summary's sentences (faithfulness). */

/** The annotation walks, and the faithfulness walk over the summary's sentences. */
export const VALIDATE_MODES = [...WALK_MODES, 'faithfulness'] as const;
export type ValidateMode = (typeof VALIDATE_MODES)[number];

/**
 * Session `id` opened (and locked) for a walk; the caller closes it. `continueWith` is the way on
 * that a lost-work warning names; the warning is told before any verdict is given.
 */
export async function openForValidation(
	dir: string,
	id: string,
	continueWith: Next,
	events: { lostWork(warning: Said): void },
): Promise<Session> {
	const session = await Session.open(dir, id);
	session.continueWith = continueWith;
	const lost = await session.lostWork().catch(async (error: unknown) => {
		await session.close();
		throw error;
	});
	if (lost) events.lostWork(lost);
	return session;
}

/** Who is judging: `--validator`, else the OS user; verdicts are stored under this name. */
export function validatorName(given: string | undefined): string {
	const name = (given ?? safeUser()).trim();
	if (name === '') throw badInput(said`no validator name; give one with ${flag('--validator', 'NAME')}`);
	return name;
}

function safeUser(): string {
	try {
		return userInfo().username;
	} catch {
		return '';
	}
}

/** The session's title, and the evidence passages of each summary sentence, as both walks show them. */
async function walkSetting(session: Session) {
	const title = session.data.kind === 'book' ? session.data.book.title : session.data.title;
	return { title, evidenceFor: await sessionEvidence(session) };
}

/** The annotation walk of `validator` over an open session, begun (its order drawn and saved). */
export async function beginAnnotationWalk(
	session: Session,
	validator: string,
	opts: { mode: WalkMode; seed: number; fraction?: number },
) {
	const walk = new ValidationWalk(session, validator, opts);
	await walk.begin();
	return {
		walk,
		...(await walkSetting(session)),
		/** How many of the walk's annotations the validator has judged, of how many. */
		progress: () => {
			const p = walkProgress(walk.items, walk.judgments, validator);
			return { judged: p.model.judged + p.human.judged, total: p.model.total + p.human.total };
		},
	};
}

/** The faithfulness walk of `validator` over an open session's summary sentences (a seeded sample of `fraction`), begun. */
export async function beginFaithfulnessWalk(
	session: Session,
	validator: string,
	opts: { seed: number; fraction?: number },
) {
	const walk = new FaithfulnessWalk(session, validator, undefined, {
		seed: opts.seed,
		fraction: opts.fraction ?? null,
	});
	await walk.begin();
	return {
		walk,
		...(await walkSetting(session)),
		/** How many of the walk's units (sentences, or claims) the validator has judged, of how many. */
		progress: () => {
			const mine = faithfulnessVerdictsOf(walk.verdicts, validator);
			return {
				judged: walk.units.filter((u) => faithfulnessVerdictOn(mine, u)).length,
				total: walk.units.length,
			};
		},
	};
}
