import { writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Run } from '../domain.ts';
import { verdictsAsCsv, verdictsAsRelease } from '../score/export-verdicts.ts';
import { diskError, isDiskError } from '../store/disk.ts';
import { noFinalSummary } from '../store/scored-summaries.ts';
import { Session, type SessionData, type StateView } from '../store/session.ts';
import { activeVersion, finalSummary, getNode, liveNodes } from '../summarize/graph.ts';
import { stepSummaries } from '../summarize/inc.ts';

/**
 * Export: a session's summaries in the BooookScore authors' formats, or its verdicts (the released
 * precision study's shape, or CSV); and the file it goes to. What cannot be exported comes back as
 * a reason, which the command words with its flags.
 */

export const EXPORT_FORMATS = ['booookscore', 'validation', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportInput {
	format: ExportFormat;
	/** With booookscore: every level or running summary, not just the final summary. */
	intermediate: boolean;
	/** With validation or csv: whose verdicts. */
	validator?: string;
}

/** Why a session's export is refused. */
export type ExportRefusal =
	/** A collection has final summaries only. */
	| { kind: 'collection-intermediate'; id: string }
	| { kind: 'no-verdicts'; id: string }
	| { kind: 'unknown-validator'; validator: string; validators: readonly string[] }
	/** The released shape holds one validator's verdicts, and several judged. */
	| { kind: 'choose-validator'; id: string; validators: readonly string[] };

export type ExportResult =
	| { kind: 'refused'; reason: ExportRefusal }
	/** `value`: JSON to write; `csv`: the CSV text, lines ended by CRLF. */
	| { kind: 'json'; value: unknown }
	| { kind: 'csv'; text: string };

export async function exportSession(dir: string, id: string, input: ExportInput): Promise<ExportResult> {
	const { data } = await Session.snapshot(dir, id);
	if (input.format === 'booookscore') return booookscoreExport(data, input.intermediate, dir);
	const validators = [...new Set(data.judgments.map((j) => j.validator))];
	if (validators.length === 0) return { kind: 'refused', reason: { kind: 'no-verdicts', id } };
	if (input.validator && !validators.includes(input.validator))
		return { kind: 'refused', reason: { kind: 'unknown-validator', validator: input.validator, validators } };
	if (input.format === 'csv') return { kind: 'csv', text: verdictsAsCsv(data, input.validator ?? null) };
	const validator = input.validator ?? (validators.length === 1 ? validators[0]! : null);
	if (validator === null) return { kind: 'refused', reason: { kind: 'choose-validator', id, validators } };
	return { kind: 'json', value: verdictsAsRelease(data, validator) };
}

/**
 * The authors' formats (data/booookscore/README.md), keyed by the book's file name:
 * summaries `{ book: final summary }`; with `intermediate`, hierarchical
 * `{ book: { summaries_dict: { "0": [...], ... }, final_summary } }` and incremental
 * `{ book: [running summary after each chunk] }`.
 */
export function booookscoreExport(
	data: StateView<SessionData>,
	intermediate: boolean,
	dir: string,
): ExportResult {
	if (data.kind === 'collection') {
		if (intermediate) return { kind: 'refused', reason: { kind: 'collection-intermediate', id: data.id } };
		return { kind: 'json', value: Object.fromEntries(data.summaries.map((s) => [s.book, s.text])) };
	}
	const run = data.run;
	const key = basename(data.book.source);
	const final = finalSummary(run);
	if (!intermediate) {
		if (final === null) throw noFinalSummary(data.id, dir);
		return { kind: 'json', value: { [key]: final } };
	}
	if (run.config.method === 'hier') {
		const levels: Record<string, string[]> = {};
		for (const n of liveNodes(run).sort((a, b) => a.level - b.level || a.index - b.index)) {
			const v = activeVersion(n);
			if (n.kind === 'clean' || !v) continue;
			(levels[String(n.level)] ??= []).push(v.text);
		}
		return { kind: 'json', value: { [key]: { summaries_dict: levels, final_summary: final } } };
	}
	return { kind: 'json', value: { [key]: runningSummaries(run) } };
}

/** The running summary after each chunk: the node each step settled on (compressions replaced). */
function runningSummaries(run: Run): string[] {
	const out = stepSummaries(run).map((s) => activeVersion(getNode(run, s.node))!.text);
	const root = run.root ? getNode(run, run.root) : null;
	if (root?.kind === 'clean') out[out.length - 1] = activeVersion(root)!.text;
	return out;
}

/** Why an export's file was not written. */
export type WriteRefusal =
	| { kind: 'exists' }
	/** The folder it would go in. */
	| { kind: 'no-folder'; folder: string }
	| { kind: 'cannot-write'; code: string | null };

/**
 * Writes `text` to a new file `path` (`force`: or over an existing one). A full or failing disk is
 * thrown as the store names it; else a refusal, or null when written.
 */
export async function writeExport(path: string, text: string, force: boolean): Promise<WriteRefusal | null> {
	try {
		await writeFile(path, text, { flag: force ? 'w' : 'wx' });
		return null;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'EEXIST') return { kind: 'exists' };
		if (code === 'ENOENT') return { kind: 'no-folder', folder: dirname(resolve(path)) };
		if (isDiskError(error))
			throw diskError(error, `cannot write ${path}`, path, 'run the same command again');
		return { kind: 'cannot-write', code: code ?? null };
	}
}
