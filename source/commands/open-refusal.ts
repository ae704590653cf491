import { sessionsDirArg } from '../config.ts';
import { safeLine } from './output.ts';
import type { OpenRefusal } from '../app/open-session.ts';
import { commandLine } from '../program.ts';
import { batchesLine } from './batch-guard.ts';

/**
 * Why a saved session was not opened, one line: after `booook resume` (`from: 'resume'`, where
 * `--abandon-batches` can be added) or on the home screen, which names the command that can.
 */
export function refusalLine(
	reason: OpenRefusal,
	dir: string,
	from: 'resume' | 'home',
	program: string,
): string {
	const at = `${reason.id}${sessionsDirArg(dir)}`;
	switch (reason.kind) {
		case 'batches':
			return batchesLine(
				reason,
				from === 'resume'
					? 'add --abandon-batches'
					: `continue it with ${commandLine(program, `resume ${at} --abandon-batches`)}`,
			);
		case 'imported':
			return (
				`session ${reason.id} holds a summary imported from ${safeLine(reason.file)}: there is nothing ` +
				`to run; read it with ${commandLine(program, `evidence ${at}`)}, ${commandLine(program, `coverage ${at}`)} or ` +
				`${commandLine(program, `report ${at}`)}`
			);
	}
}
