import { resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { listSessions } from '../app/list-sessions.ts';
import { sessionColumns } from '../format/sessions.ts';
import { layoutTable } from '../format/table.ts';
import { output, terminalColumns, type Stream } from './output.ts';
import { sessionsDirOption, type Exit } from './flags.ts';
import { commandLine, say } from '../program.ts';

export const spec = (exit: Exit, program: string) =>
	new Command('sessions')
		.description('list saved sessions, most recent first')
		.addOption(sessionsDirOption())
		.option('--json', 'print as JSON')
		.action(async (flags) => {
			exit(await sessionsCommand(resolveSessionsDir(flags.sessionsDir), { json: !!flags.json, program }));
		});

/** `booook sessions`: every saved session, most recent first, and any that could not be read. */
export async function sessionsCommand(
	dir: string,
	opts: { json: boolean; program: string; stdout?: Stream; stderr?: Stream },
): Promise<number> {
	const out = output(opts.stdout ?? process.stdout);
	const err = output(opts.stderr ?? process.stderr);
	const sessions = await listSessions(dir);
	if (opts.json) {
		out.json(
			{
				dir,
				sessions: [...sessions],
				problems: sessions.problems.map((p) => ({ ...p, reason: say(p.reason, opts.program) })),
			},
			2,
		);
		return 0;
	}
	if (sessions.length === 0 && sessions.problems.length === 0) {
		out.line(`no sessions in ${dir}; start one with: ${commandLine(opts.program, 'run BOOK')}`);
		return 0;
	}
	// The home screen's columns; on a terminal they fit its width, elsewhere nothing is cut.
	const stream = opts.stdout ?? process.stdout;
	const width = terminalColumns(stream) ?? Infinity;
	const table = layoutTable(sessionColumns(sessions), width);
	if (sessions.length > 0) out.line([table.header, ...table.rows].join('\n'));
	for (const p of sessions.problems)
		err.line(`cannot read session ${p.id}: ${say(p.reason, opts.program)} (${p.file})`);
	return 0;
}
