import { listSessions } from '../store/session.ts';
import { sanitize } from '../text/sanitize.ts';
import { output, type Stream } from './output.ts';

/** `booook sessions`: every saved session, most recent first, and any that could not be read. */
export async function sessionsCommand(dir: string, opts: { json: boolean; stdout?: Stream; stderr?: Stream }): Promise<number> {
	const out = output(opts.stdout ?? process.stdout);
	const err = output(opts.stderr ?? process.stderr);
	const sessions = await listSessions(dir);
	if (opts.json) {
		out.json({ dir, sessions: [...sessions], problems: sessions.problems }, 2);
		return 0;
	}
	if (sessions.length === 0 && sessions.problems.length === 0) {
		out.line(`no sessions in ${dir}; start one with: booook run BOOK`);
		return 0;
	}
	for (const s of sessions) {
		const method = s.method ?? 'coll';
		const model = s.kind === 'collection' ? `imported, ${s.progress.total} summaries` : s.provider === 'extractive' ? 'extractive baseline' : `${s.provider} ${s.model}`;
		// Made safe before padding, so the columns line up.
		out.line(`${s.id}  ${sanitize(s.title).slice(0, 40).padEnd(40)}  ${method.padEnd(4)}  ${sanitize(model).padEnd(28)}  ${s.status.padEnd(9)}  ${s.progress.done}/${s.progress.total}  ${s.updatedAt.slice(0, 16).replace('T', ' ')}`);
	}
	for (const p of sessions.problems) err.line(`cannot read session ${p.id}: ${p.reason} (${p.file})`);
	return 0;
}
