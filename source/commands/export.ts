import { counted } from '../format/count.ts';
import { noFinalSummary } from '../store/scored-summaries.ts';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { Command, Option } from '@commander-js/extra-typings';
import type { Run } from '../domain.ts';
import { badInput } from '../errors.ts';
import { activeVersion, getNode, liveNodes } from '../summarize/graph.ts';
import { stepSummaries } from '../summarize/inc.ts';
import { resolveSessionsDir, Session, type SessionData } from '../store/session.ts';
import { finalSummary } from '../summarize/graph.ts';
import { verdictsAsCsv, verdictsAsRelease } from '../store/export-verdicts.ts';
import { safeJson } from '../text/sanitize.ts';
import { output, safeText, type Stream } from './output.ts';
import { sessionsDirOption, type Exit } from './flags.ts';
import { diskError, isDiskError } from '../store/disk.ts';
import { commandLine } from '../program.ts';

export const EXPORT_FORMATS = ['booookscore', 'validation', 'csv'] as const;

export const spec = (exit: Exit) =>
	new Command('export')
		.description(
			"write a session's summaries in the BooookScore authors' JSON formats, or its verdicts (validation JSON or CSV)",
		)
		.argument('<id>', 'session id')
		.addOption(
			new Option(
				'--format <format>',
				"booookscore: summaries in the authors' format; validation: verdicts in the released precision study's shape; csv: one row per verdict",
			)
				.choices(EXPORT_FORMATS)
				.default('booookscore'),
		)
		.option(
			'--intermediate',
			'with booookscore: every level (hierarchical) or running summary (incremental), not just the final summary',
		)
		.option(
			'--validator <name>',
			'with validation or csv: whose verdicts (validation needs one when several people judged)',
		)
		.option('--out <file>', 'write to a file instead of stdout (refuses to replace one)')
		.option('--force', 'with --out: replace an existing file')
		.addOption(sessionsDirOption())
		.action(async (id, flags) => {
			exit(
				await exportCommand(resolveSessionsDir(flags.sessionsDir), id, {
					format: flags.format,
					intermediate: !!flags.intermediate,
					out: flags.out,
					force: flags.force,
					validator: flags.validator,
				}),
			);
		});

/**
 * The authors' formats (data/booookscore/README.md), keyed by the book's file name:
 * summaries `{ book: final summary }`; with `intermediate`, hierarchical
 * `{ book: { summaries_dict: { "0": [...], ... }, final_summary } }` and incremental
 * `{ book: [running summary after each chunk] }`.
 */
export function booookscoreExport(
	data: SessionData,
	intermediate: boolean,
	dir: string,
): Record<string, unknown> {
	if (data.kind === 'collection') {
		if (intermediate)
			throw badInput(
				`session ${data.id} is an imported collection; it has final summaries only, so leave out --intermediate`,
			);
		return Object.fromEntries(data.summaries.map((s) => [s.book, s.text]));
	}
	const run = data.run;
	const key = basename(data.book.source);
	const final = finalSummary(run);
	if (!intermediate) {
		if (final === null) throw noFinalSummary(data.id, dir);
		return { [key]: final };
	}
	if (run.config.method === 'hier') {
		const levels: Record<string, string[]> = {};
		for (const n of liveNodes(run).sort((a, b) => a.level - b.level || a.index - b.index)) {
			const v = activeVersion(n);
			if (n.kind === 'clean' || !v) continue;
			(levels[String(n.level)] ??= []).push(v.text);
		}
		return { [key]: { summaries_dict: levels, final_summary: final } };
	}
	return { [key]: runningSummaries(run) };
}

/** The running summary after each chunk: the node each step settled on (compressions replaced). */
function runningSummaries(run: Run): string[] {
	const out = stepSummaries(run).map((s) => activeVersion(getNode(run, s.node))!.text);
	const root = run.root ? getNode(run, run.root) : null;
	if (root?.kind === 'clean') out[out.length - 1] = activeVersion(root)!.text;
	return out;
}

/**
 * `booook export ID`: to stdout, or to a new file with `--out`. Either way the text is the same and
 * safe to print: JSON with control characters and bidirectional overrides escaped (the values are
 * unchanged), CSV with them removed (CSV has no escapes).
 */
export async function exportCommand(
	dir: string,
	id: string,
	opts: {
		format: string;
		intermediate: boolean;
		out?: string;
		force?: boolean;
		validator?: string;
		stdout?: Stream;
		stderr?: Stream;
	},
): Promise<number> {
	if (!(EXPORT_FORMATS as readonly string[]).includes(opts.format))
		throw badInput(`--format ${opts.format}: unknown format; use ${EXPORT_FORMATS.join(', ')}`);
	if (opts.force && !opts.out)
		throw badInput(
			'--force only replaces the file named by --out; give --out FILE, or leave out --force to print to stdout',
		);
	// An option the chosen format does not read would otherwise be dropped without a word.
	if (opts.intermediate && opts.format !== 'booookscore')
		throw badInput(
			`--intermediate exports summaries, not verdicts; leave it out of --format ${opts.format}, or use --format booookscore`,
		);
	if (opts.validator !== undefined && opts.format === 'booookscore')
		throw badInput(
			'--validator chooses whose verdicts --format validation or csv writes; leave it out of --format booookscore',
		);
	const { data } = await Session.snapshot(dir, id);
	let text: string;
	if (opts.format === 'booookscore') {
		text = `${safeJson(booookscoreExport(data, opts.intermediate, dir), 2)}\n`;
	} else {
		const validators = [...new Set(data.judgments.map((j) => j.validator))];
		if (validators.length === 0)
			throw badInput(
				`session ${id} has no verdicts yet; judge its annotations with: ${commandLine(`validate ${id}`)}`,
			);
		if (opts.validator && !validators.includes(opts.validator))
			throw badInput(
				`--validator ${opts.validator}: no verdicts by that name; the validators are: ${validators.join(', ')}`,
			);
		if (opts.format === 'csv') text = safeText(verdictsAsCsv(data, opts.validator ?? null), '\r\n');
		else {
			// The released file holds one validator's verdicts.
			const validator = opts.validator ?? (validators.length === 1 ? validators[0]! : null);
			if (validator === null)
				throw badInput(
					`session ${id} has verdicts by ${counted(validators.length, 'validator')} (${validators.join(', ')}); choose one with --validator NAME`,
				);
			text = `${safeJson(verdictsAsRelease(data, validator), 2)}\n`;
		}
	}
	if (!opts.out) {
		output(opts.stdout ?? process.stdout).text(text, opts.format === 'csv' ? '\r\n' : '\n');
		return 0;
	}
	try {
		await writeFile(opts.out, text, { flag: opts.force ? 'w' : 'wx' });
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'EEXIST')
			throw badInput(`${opts.out} already exists; choose another --out or add --force to replace it`);
		if (code === 'ENOENT')
			throw badInput(
				`${opts.out}: the folder ${dirname(resolve(opts.out))} does not exist; create it or choose another --out`,
			);
		if (isDiskError(error))
			throw diskError(error, `cannot write ${opts.out}`, opts.out, 'run the same command again');
		throw badInput(`${opts.out}: cannot write (${code ?? 'error'}); choose another --out`);
	}
	output(opts.stderr ?? process.stderr).line(`wrote ${opts.out}`);
	return 0;
}
