// Preloaded into the booook process by bench/study.ts (node --expose-gc --import): every second a
// full collection, then the heap still in use, appended to $BENCH_HEAP_FILE as "epoch-ms bytes".
// So memory a study keeps (growing with the cells done) shows apart from garbage not yet collected,
// which RSS alone cannot tell.
import { appendFileSync } from 'node:fs';

const file = process.env.BENCH_HEAP_FILE;
if (file && typeof globalThis.gc === 'function') {
	setInterval(() => {
		globalThis.gc();
		appendFileSync(file, `${Date.now()} ${process.memoryUsage().heapUsed}\n`);
	}, 1000).unref();
}
