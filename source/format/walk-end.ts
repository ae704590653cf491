import { next, said, shellWord, type Said } from '../program.ts';

/**
 * How far a walk got, once it is left, and the command that continues it (or shows its results);
 * `where`: the words that reach its folder (config.ts `sessionsDirArg`). The edge says the commands.
 */

/** A validation walk as asked (structurally ui/screens/validate/App.tsx's `ValidationAsked`). */
interface ValidationAsked {
	id: string;
	validator: string;
	mode: string;
	seed: number;
	fraction?: number;
}

/**
 * How far a validation walk got; `named`: the validator was named by `--validator`, which the
 * command repeats.
 */
export function validationWalked(
	asked: ValidationAsked,
	walked: { judged: number; total: number; unitKind?: string; partial?: boolean },
	named: boolean,
	where: string,
): Said {
	const { id, validator, mode, seed, fraction } = asked;
	const { judged, total } = walked;
	const who = named ? ` --validator ${shellWord(validator)}` : '';
	const results = said`See the results with: ${next('report', `${id}${where}`)}`;
	if (mode === 'faithfulness') {
		// A partial walk's sample is drawn from the seed and the fraction: the hint names both.
		const sample = walked.partial ? ` --fraction ${fraction} --seed ${seed}` : '';
		const then =
			judged < total
				? said`Continue with: ${next('validate', `${id} --mode faithfulness${sample}${who}${where}`)}`
				: results;
		const of = walked.partial ? ' of your sample' : '';
		return said`${validator}: ${judged}/${total} ${walked.unitKind}${of} judged, all saved. ${then}`;
	}
	const share = mode === 'sample' ? ` --fraction ${fraction ?? 0.2}` : '';
	const then =
		judged < total
			? said`Continue with: ${next('validate', `${id} --mode ${mode} --seed ${seed}${share}${who}${where}`)}`
			: results;
	return said`${validator}: ${judged}/${total} judged, all saved. ${then}`;
}

/** How far `annotator` got in a comparison's walk; `results`: the command line that prints its results. */
export function comparisonWalked(
	annotator: string,
	walked: { name: string; judged: number; total: number },
	results: string,
	where: string,
): Said {
	const { name, judged, total } = walked;
	const again = next('compare', `--name ${shellWord(name)} --annotator ${shellWord(annotator)}${where}`);
	const then = judged < total ? said`Continue with: ${again}` : `See the results with: ${results}`;
	return said`${annotator}: ${judged}/${total} pairs judged, all saved. ${then}`;
}
