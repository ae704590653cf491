import { counted } from './count.ts';
import { spentText } from './cost.ts';

/** `faithfulness`'s lines: what the judge will do, and what it did. */

/** The first line: the judge, and what its calls are. */
export function judgingLine(id: string, judge: { provider: string; model: string }, top: number): string {
	return (
		`judging the final summary of ${id} with ${judge.provider}/${judge.model}: one call per ` +
		`sentence to split it into claims, then one per claim with its ${counted(top, 'best passage')} of the book`
	);
}

/** What was judged, the answers that could not be read, and what the calls cost. */
export function judgedText(r: {
	judged: number;
	claims: number;
	unreadable: number;
	unsplit: number;
	totals: { calls: number; cost: number };
}): string {
	return `${counted(r.judged, 'sentence')} judged through ${counted(r.claims, 'claim')}${unreadable(r)} (${spentText(r.totals)})`;
}

/** The answers that could not be read, as the closing line names them (none: nothing). */
function unreadable(result: { unreadable: number; unsplit: number }): string {
	const parts = [
		result.unsplit > 0
			? `${counted(result.unsplit, 'sentence')} judged whole (claims answer unreadable)`
			: '',
		result.unreadable > 0
			? `${counted(result.unreadable, 'claim')} unreadable (counted as unchecked, so not faithful)`
			: '',
	].filter((p) => p !== '');
	return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}

/** How the judging ended: stopped or failed, with the command that continues it (`again`), or what was judged and where the rest is read (`report`). */
export function judgingEndLine(
	r: Parameters<typeof judgedText>[0] & { status: string; error: string | null },
	again: string,
	report: string,
): string {
	if (r.status === 'cancelled')
		return `stopped after ${counted(r.judged, 'verdict')} (${spentText(r.totals)}); they are saved. Continue with: ${again}`;
	if (r.status === 'failed')
		return `judging failed: ${r.error ?? 'unknown error'}. Fix the cause, then continue with: ${again}`;
	return `${judgedText(r)}; the other judges, the people's verdicts and agreement: ${report}`;
}
