import { listSessions } from '../store/session.ts';
import { sanitize } from '../text/sanitize.ts';

/** `booook sessions`: every saved session, most recent first, and any that could not be read. */
export async function sessionsCommand(dir: string, opts: { json: boolean }): Promise<number> {
	const sessions = await listSessions(dir);
	if (opts.json) {
		process.stdout.write(`${JSON.stringify({ dir, sessions: [...sessions], problems: sessions.problems }, null, 2)}\n`);
		return 0;
	}
	if (sessions.length === 0 && sessions.problems.length === 0) {
		process.stdout.write(`no sessions in ${dir}; start one with: booook run BOOK\n`);
		return 0;
	}
	for (const s of sessions) {
		const method = s.method ?? 'coll';
		const model = s.kind === 'collection' ? `imported, ${s.progress.total} summaries` : s.provider === 'extractive' ? 'extractive baseline' : `${s.provider} ${s.model}`;
		process.stdout.write(`${s.id}  ${sanitize(s.title).slice(0, 40).padEnd(40)}  ${method.padEnd(4)}  ${model.padEnd(28)}  ${s.status.padEnd(9)}  ${s.progress.done}/${s.progress.total}  ${s.updatedAt.slice(0, 16).replace('T', ' ')}\n`);
	}
	for (const p of sessions.problems) process.stderr.write(`cannot read session ${p.id}: ${p.reason} (${p.file})\n`);
	return 0;
}
