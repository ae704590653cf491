import { render } from 'ink';
import {
	beginAnnotationWalk,
	beginFaithfulnessWalk,
	openForValidation,
	type ValidateMode,
} from '../../../app/validation.ts';
import type { Streams } from '../../../app/services.ts';
import type { Next, Said } from '../../../program.ts';
import { Root } from '../../root.tsx';
import { inkStreams } from '../../terminal.ts';
import { FaithfulnessScreen } from '../faithfulness/Screen.tsx';
import { ValidateScreen } from './Screen.tsx';

/** A validation walk asked for, by `booook validate` or the home screen's V; the edge words its hints. */
export interface ValidationAsked {
	id: string;
	validator: string;
	mode: ValidateMode;
	seed: number;
	fraction?: number;
	/** The command that continues this walk, which a lost-work warning names. */
	continueWith: Next;
	/** The command that reports the verdicts, which the faithfulness walk's last page names. */
	reportHint: string;
	/** Saves of the session were lost before it was opened: told before any verdict is given. */
	lostWork(warning: Said): void;
	/** How booook was started: the screens say command lines with it. */
	program: string;
}

/** How far the walk got: `judged` of `total` units (annotations, sentences or claims), all saved. */
export interface WalkedValidation {
	judged: number;
	total: number;
	/** The faithfulness walk's units ('sentences' or 'claims'); undefined for an annotation walk. */
	unitKind?: string;
	/** The faithfulness walk covers a seeded sample of the summary, not all of it. */
	partial?: boolean;
}

/**
 * The session's validation walk on the terminal until the user leaves it (paper Appendix G): its
 * session opened and locked, the walk begun, each verdict saved as it is given; the session closed.
 */
export async function walkValidation(
	dir: string,
	asked: ValidationAsked,
	streams: Streams,
): Promise<WalkedValidation> {
	const session = await openForValidation(dir, asked.id, asked.continueWith, asked);
	const show = { ...inkStreams(streams), exitOnCtrlC: false, patchConsole: false };
	try {
		if (asked.mode === 'faithfulness') {
			const { walk, title, evidenceFor, progress } = await beginFaithfulnessWalk(
				session,
				asked.validator,
				asked,
			);
			const app = render(
				<Root program={asked.program}>
					<FaithfulnessScreen
						walk={walk}
						title={title}
						evidenceFor={evidenceFor}
						reportHint={asked.reportHint}
					/>
				</Root>,
				show,
			);
			await app.waitUntilExit();
			return { ...progress(), unitKind: walk.unitKind, partial: walk.partial };
		}
		const { walk, title, evidenceFor, progress } = await beginAnnotationWalk(session, asked.validator, {
			...asked,
			mode: asked.mode,
		});
		const app = render(
			<Root program={asked.program}>
				<ValidateScreen walk={walk} title={title} evidenceFor={evidenceFor} />
			</Root>,
			show,
		);
		await app.waitUntilExit();
		return progress();
	} finally {
		await session.close();
	}
}
