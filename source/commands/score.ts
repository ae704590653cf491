import { badInput } from '../errors.ts';
import { scoreReleased, scoreSystem, type SystemScore } from '../score/booookscore.ts';
import { convertHumanAnnotations, convertModelAnnotations, convertSummaries } from '../score/formats.ts';
import { scoreHumanSummary } from '../score/human.ts';
import { LABELS } from '../score/labels.ts';
import { countTokens } from '../text/tokens.ts';
import { sanitize } from '../text/sanitize.ts';
import { readDataFile } from './data-files.ts';

export interface ScoreOptions {
	summaries?: string;
	annotations?: string;
	human?: string;
	json: boolean;
}

/**
 * `booook score` over the authors' files: model annotations (`--summaries` with `--annotations`)
 * or human annotations (`--human`), scored without any model call.
 */
export async function scoreCommand(opts: ScoreOptions): Promise<number> {
	let system: SystemScore;
	let texts: string[];
	const notes: string[] = [];
	if (opts.human) {
		if (opts.summaries || opts.annotations) throw badInput('--human scores the summaries inside that file; leave out --summaries and --annotations');
		const human = await readDataFile(opts.human, convertHumanAnnotations, '--human');
		system = scoreSystem(new Map([...human].map(([book, h]) => [book, scoreHumanSummary(h)] as const)));
		texts = [...human.values()].map((h) => h.summary);
	} else if (opts.summaries && opts.annotations) {
		const summaries = await readDataFile(opts.summaries, convertSummaries, '--summaries');
		const annotations = await readDataFile(opts.annotations, convertModelAnnotations, '--annotations');
		const released = scoreReleased(summaries, annotations);
		system = released.system;
		texts = [...summaries.values()];
		const unmatched = [...released.unmatched.values()].reduce((s, u) => s + u.length, 0);
		if (unmatched > 0) notes.push(`${unmatched} annotated sentences were not found in their summaries and were left out`);
		if (released.orphans.length > 0) notes.push(`${released.orphans.length} annotated books have no summary and were left out`);
	} else if (opts.summaries) {
		throw badInput('annotating summaries with a model is not built yet; give the annotations with --annotations FILE, or score human annotations with --human FILE');
	} else {
		throw badInput('nothing to score; give --summaries FILE --annotations FILE, or --human FILE');
	}
	const result = {
		booookscore: system.score,
		summaries: system.scored,
		sentences: system.sentences,
		confusing: system.confusing,
		parse_failures: system.failures,
		avg_tokens: texts.length ? texts.reduce((s, t) => s + countTokens(t), 0) / texts.length : 0,
		types: system.types,
		books: Object.fromEntries([...system.perBook].map(([book, s]) => [book, s.score === null ? null : 100 * s.score])),
	};
	if (opts.json) {
		process.stdout.write(`${JSON.stringify(result)}\n`);
	} else {
		const lines = [
			`BooookScore ${result.booookscore === null ? 'n/a' : result.booookscore.toFixed(1)} over ${result.summaries} summaries (${result.sentences} sentences, ${result.confusing} confusing, ${result.parse_failures} unparsed); average ${result.avg_tokens.toFixed(1)} tokens per summary`,
			'error types per 100 sentences:',
			...LABELS.map((l) => `  ${l.padEnd(18)} ${system.distribution[l].toFixed(2)}  (${system.types[l]})`),
		];
		process.stdout.write(`${lines.map(sanitize).join('\n')}\n`);
	}
	for (const note of notes) process.stderr.write(`note: ${note}\n`);
	return 0;
}
