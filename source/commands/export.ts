import { Command, Option } from '@commander-js/extra-typings';
import { exportRefusalLine, outRefusalLine } from '../format/export.ts';
import { badInput } from '../errors.ts';
import { resolveSessionsDir } from '../config.ts';
import { EXPORT_FORMATS, exportSession, writeExport, type ExportFormat } from '../app/export.ts';
import { output, jsonText, safeText, type Stream } from './output.ts';
import { sessionsDirOption, type Exit } from './flags.ts';

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
	const result = await exportSession(dir, id, {
		format: opts.format as ExportFormat,
		intermediate: opts.intermediate,
		validator: opts.validator,
	});
	if (result.kind === 'refused') throw badInput(exportRefusalLine(result.reason));
	// JSON with control characters and bidirectional overrides escaped; CSV, which has no escapes, with them removed.
	const text = result.kind === 'csv' ? safeText(result.text, '\r\n') : `${jsonText(result.value, 2)}\n`;
	if (!opts.out) {
		output(opts.stdout ?? process.stdout).text(text, result.kind === 'csv' ? '\r\n' : '\n');
		return 0;
	}
	const refused = await writeExport(opts.out, text, !!opts.force);
	if (refused) throw badInput(outRefusalLine(opts.out, refused));
	output(opts.stderr ?? process.stderr).line(`wrote ${opts.out}`);
	return 0;
}
