import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPrices } from '../../source/llm/prices.ts';
import { planStudy, type StudyPlan } from '../../source/app/study-plan.ts';
import { tempDir } from './temp.ts';

const NOUNS = ['captain', 'river', 'letter', 'garden', 'soldier', 'lantern', 'harbour', 'widow', 'orchard'];
const VERBS = ['remembers', 'crosses', 'hides', 'answers', 'follows', 'burns', 'forgives'];
const PLACES = ['Dover', 'the mill', 'the north road', 'the old church', 'Calais'];

/** A small book of varied sentences (about 15 words each), the same for the same `seed`. */
export function tinyBookText(sentences: number, seed = 1): string {
	const paragraphs: string[] = [];
	let paragraph: string[] = [];
	for (let i = 0; i < sentences; i++) {
		const k = i * 7 + seed * 13;
		paragraph.push(
			`In ${PLACES[k % PLACES.length]} the ${NOUNS[k % NOUNS.length]} ${VERBS[k % VERBS.length]} the ${NOUNS[(k * 3 + 1) % NOUNS.length]} while the ${NOUNS[(k * 5 + 2) % NOUNS.length]} waits for evening ${i}.`,
		);
		if (paragraph.length === 6) {
			paragraphs.push(paragraph.join(' '));
			paragraph = [];
		}
	}
	if (paragraph.length > 0) paragraphs.push(paragraph.join(' '));
	return `${paragraphs.join('\n\n')}\n`;
}

/**
 * A study over small books written to a temp folder (extractive, so no call leaves the process):
 * `books` names the files (without .txt), the rest of `spec` is the study file's.
 */
export async function tinyStudy(
	name: string,
	books: readonly string[],
	spec: Record<string, unknown>,
): Promise<{ file: string; dir: string; sessions: string; plan: StudyPlan }> {
	const dir = tempDir(`study-${name}`);
	const paths = books.map((book, i) => {
		const path = join(dir, `${book}.txt`);
		writeFileSync(path, tinyBookText(240, i + 1));
		return path;
	});
	const file = join(dir, 'study.json');
	writeFileSync(
		file,
		JSON.stringify({
			name,
			books: paths,
			providers: [{ provider: 'extractive' }],
			contextWindows: [8192],
			...spec,
		}),
	);
	return {
		file,
		dir,
		sessions: join(dir, 'sessions'),
		plan: await planStudy(file, loadPrices(undefined, {})),
	};
}
