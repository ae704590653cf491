// Preloaded into a booook process (NODE_OPTIONS=--import) by test/support/durable-writes.ts: it
// counts the process's durable writes (every fsync: each journal line, each call logged, each file
// replaced whole, each folder renamed into) and kills the process with SIGKILL right after the
// one numbered BOOOOK_KILL_AT_SYNC, as a power cut or kill -9 would stop it there. With
// BOOOOK_SYNC_COUNT=FILE it writes how many there were to FILE when the process exits; with
// BOOOOK_SYNC_LOG=FILE, what each one made durable, a line each: the file's name, or "(a folder)".
import fs, { writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { basename } from 'node:path';

const killAt = Number(process.env.BOOOOK_KILL_AT_SYNC ?? 0);
const countFile = process.env.BOOOOK_SYNC_COUNT;
const logFile = process.env.BOOOOK_SYNC_LOG;
let syncs = 0;
const synced = [];

// A file handle does not know its path: the opening remembers it, for the log.
const paths = new WeakMap();
const open = fs.promises.open;
fs.promises.open = async function opened(path, ...rest) {
	const handle = await open.call(this, path, ...rest);
	paths.set(handle, String(path));
	return handle;
};
// booook imports `open` by name: its binding follows the patched one only once synced.
syncBuiltinESMExports();

const probe = await open(process.execPath, 'r');
const FileHandle = Object.getPrototypeOf(probe);
await probe.close();
const sync = FileHandle.sync;
FileHandle.sync = async function counted() {
	await sync.call(this);
	const n = ++syncs;
	if (n === killAt) process.kill(process.pid, 'SIGKILL');
	if (logFile) {
		const path = paths.get(this);
		const folder = path !== undefined && (await this.stat()).isDirectory();
		synced[n - 1] = path === undefined ? '(unknown)' : folder ? '(a folder)' : basename(path);
	}
};
process.on('exit', () => {
	if (countFile) writeFileSync(countFile, String(syncs));
	if (logFile) writeFileSync(logFile, synced.map((s) => `${s}\n`).join(''));
});
