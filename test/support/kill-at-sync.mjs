// Preloaded into a booook process (NODE_OPTIONS=--import) by test/support/durable-writes.ts: it
// counts the process's durable writes (every fsync: each journal line, each call logged, each file
// replaced whole, each folder renamed into) and kills the process with SIGKILL right after the
// one numbered BOOOOK_KILL_AT_SYNC, as a power cut or kill -9 would stop it there. With
// BOOOOK_SYNC_COUNT=FILE it writes how many there were to FILE when the process exits.
import { open } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';

const killAt = Number(process.env.BOOOOK_KILL_AT_SYNC ?? 0);
const countFile = process.env.BOOOOK_SYNC_COUNT;
let syncs = 0;

const probe = await open(process.execPath, 'r');
const FileHandle = Object.getPrototypeOf(probe);
await probe.close();
const sync = FileHandle.sync;
FileHandle.sync = async function counted() {
	await sync.call(this);
	syncs++;
	if (syncs === killAt) process.kill(process.pid, 'SIGKILL');
};
if (countFile) process.on('exit', () => writeFileSync(countFile, String(syncs)));
