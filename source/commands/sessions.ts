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
	// Every cell is made safe, then the columns are as wide as their widest cell (ids and models vary).
	const rows = sessions.map((s) => [
		s.id,
		sanitize(s.title).slice(0, 40),
		s.method ?? 'coll',
		sanitize(s.kind === 'collection' ? `imported, ${s.progress.total} summaries` : s.provider === 'extractive' ? 'extractive baseline' : `${s.provider} ${s.model}`),
		s.status,
		`${s.progress.done}/${s.progress.total}`,
		s.booookscore === undefined ? '—' : s.booookscore.toFixed(1),
		s.updatedAt.slice(0, 16).replace('T', ' '),
	]);
	const header = ['id', 'title', 'method', 'model', 'status', 'nodes', 'score', 'updated'];
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => [...r[i]!].length)));
	const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
	if (rows.length > 0) out.line([line(header), ...rows.map(line)].join('\n'));
	for (const p of sessions.problems) err.line(`cannot read session ${p.id}: ${p.reason} (${p.file})`);
	return 0;
}
