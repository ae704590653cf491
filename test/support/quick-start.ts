import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The command lines of the README's quick start: the block under its quickstart marker, in `root`. */
export function quickStart(root: string): string[] {
	const readme = readFileSync(join(root, 'README.md'), 'utf8');
	const block = /<!-- quickstart[^>]*-->\n```sh\n([\s\S]*?)```/u.exec(readme);
	if (!block) throw new Error(`${join(root, 'README.md')} has no quick start block under its marker`);
	return block[1]!.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
}
