import { readFile } from 'node:fs/promises';
import { badInput } from '../errors.ts';
import { flag, said, type Flag } from '../program.ts';
import type { Converted } from '../score/formats.ts';

/**
 * Reads one of the authors' JSON files and converts it; every failure is a one-line error naming
 * the file (and, from the converter, the first bad entry).
 */
export async function readDataFile<T>(
	path: string,
	convert: (value: unknown) => Converted<T>,
	named: Flag,
): Promise<T> {
	const file = flag(named.flag, path);
	let text: string;
	try {
		text = await readFile(path, 'utf8');
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		throw badInput(
			said`${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : `cannot read (${code ?? 'error'})`}; give the JSON file`,
		);
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		throw badInput(said`${file}: not valid JSON (${(error as Error).message})`);
	}
	const converted = convert(value);
	if (!converted.ok) throw badInput(said`${file}: ${converted.error}`);
	return converted.value;
}
