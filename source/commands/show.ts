import { resolveSessionsDir, sessionsDirArg } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { collectionData, showSession } from '../app/show.ts';
import { output, type Stream } from './output.ts';
import { sessionsDirOption, type Exit } from './flags.ts';
import { say } from '../program.ts';
import { collectionLines, showLines } from '../format/show.ts';

export const spec = (exit: Exit, program: string) =>
	new Command('show')
		.description(
			'a session: configuration, levels or steps, usage and cost, final summary and its statistics',
		)
		.argument('<id>', 'session id')
		.addOption(sessionsDirOption())
		.option('--json', 'print as JSON')
		.action(async (id, flags) => {
			exit(await showCommand(resolveSessionsDir(flags.sessionsDir), id, { json: !!flags.json, program }));
		});

export async function showCommand(
	dir: string,
	id: string,
	opts: { json: boolean; program: string; stdout?: Stream; stderr?: Stream },
): Promise<number> {
	const out = output(opts.stdout ?? process.stdout);
	// Lost saves are told on stderr, so --json stays one document.
	const read = await showSession(dir, id, {
		lostWork: (warning) =>
			output(opts.stderr ?? process.stderr).line(`warning: ${say(warning, opts.program)}`),
	});
	const shown = read.kind === 'collection' ? collectionData(read.data) : read.shown;
	if (opts.json) out.json(shown, 2);
	else {
		const lines = 'kind' in shown ? collectionLines(shown) : showLines(shown, sessionsDirArg(dir));
		out.line(lines.map((line) => say(line, opts.program)).join('\n'));
	}
	return 0;
}
