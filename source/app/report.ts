import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Run } from '../domain.ts';
import { PassageIndex } from '../evidence/rank.ts';
import { buildReport, reportLines } from '../score/report.ts';
import { comparisonNameOf } from '../store/comparison.ts';
import { sessionsDirArg } from '../config.ts';
import { folderState } from '../store/leftover.ts';
import { Session } from '../store/session.ts';
import { activeVersion, findNode } from '../summarize/graph.ts';
import { chaptersOf } from '../text/chapters.ts';
import { placedCoverage } from './evidence-session.ts';
import { sessionMemory } from './memory.ts';

/** `booook report`: a session's results as its data stands, or (a study file named) a study's. */

/** A study file named where a session id goes: a file with a study's extension, and no session of that id. */
export async function isStudyFile(dir: string, id: string): Promise<boolean> {
	if (!/\.(?:json|ya?ml)$/iu.test(id)) return false;
	if ((await folderState(join(dir, id))).kind === 'session') return false;
	return stat(id).then(
		(s) => s.isFile(),
		() => false,
	);
}

/** Whether `<dir>/<id>` is a session's folder. */
export async function isSessionFolder(dir: string, id: string): Promise<boolean> {
	return (await folderState(join(dir, id))).kind === 'session';
}

/** What `report ID` names: a study file, a comparison's folder (NAME.compare, when no session has that id), or a session. */
export async function reportTarget(
	dir: string,
	id: string,
): Promise<{ kind: 'study' } | { kind: 'comparison'; name: string } | { kind: 'session' }> {
	if (await isStudyFile(dir, id)) return { kind: 'study' };
	const name = comparisonNameOf(id);
	if (name !== null && !(await isSessionFolder(dir, id))) return { kind: 'comparison', name };
	return { kind: 'session' };
}

/**
 * A session's report, read from a snapshot (nothing is changed): BooookScore by source, precision,
 * agreement, faithfulness; `missing`, the final summary a run names but does not hold (text and
 * JSON alike say so once); and for a run's session, the coverage of its final summary, computed
 * when asked (null before it has text), with the chapters it cites.
 */
export async function sessionReport(dir: string, id: string, opts: { seed: number; resamples: number }) {
	const { data, text } = await Session.snapshot(dir, id);
	const report = buildReport(data, { seed: opts.seed, resamples: opts.resamples });
	const run = data.kind === 'book' ? data.run : null;
	const title = data.kind === 'book' ? data.book.title : data.title;
	return {
		data,
		report,
		/**
		 * The report as lines `width` wide, what to run next named for this session in its folder and
		 * said by `say` (a command's arguments as the user starts booook).
		 */
		lines: (width: number, say: (args: string) => string) =>
			reportLines(`${title} — session ${id}`, report, width, (verb) =>
				say(`${verb} ${id}${sessionsDirArg(dir)}`),
			),
		missing: run && missingRoot(run),
		// Memory probes (NarrativeXL) of a run's summaries, when any were answered.
		memory: data.kind === 'book' && (data.memoryAnswers ?? []).length > 0 ? sessionMemory(data) : null,
		finalCoverage:
			run &&
			(() =>
				hasFinalText(run)
					? placedCoverage(run, text, new PassageIndex(text, run.chunks), chaptersOf(text))
					: null),
	};
}

/** The root a run names that is not among its nodes (its session.json edited or damaged), with the nodes it has; or null. */
function missingRoot(run: Run): { root: string; nodes: string } | null {
	if (run.root === null || findNode(run, run.root)) return null;
	const last = run.nodes.at(-1)?.id;
	return { root: run.root, nodes: last ? `its nodes are n0 to ${last}` : 'it has no nodes' };
}

/** Whether the run's final summary is a node with text, so its coverage can be drawn. */
function hasFinalText(run: Run): boolean {
	const root = run.root === null ? undefined : findNode(run, run.root);
	return root !== undefined && activeVersion(root) !== null;
}
