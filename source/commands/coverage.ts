import { resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { badInput } from '../errors.ts';
import { integer, sessionsDirOption, type Exit } from './flags.ts';
import { evidenceSession, nodeSentences, placedCoverage } from '../app/evidence-session.ts';
import { embedderOf, withEmbeddingsOption, type EmbeddingsFlags } from './embeddings-flag.ts';
import { embeddingsModel } from '../app/dense-evidence.ts';
import { sentenceProgress } from './sentence-progress.ts';
import { output, terminalColumns, type Stream } from './output.ts';
import { commandLine } from '../program.ts';
import { finalCoverageJson, finalCoverageLines, LABELS } from '../format/coverage.ts';

export const spec = (exit: Exit, program: string) =>
	withEmbeddingsOption(new Command('coverage'))
		.description(
			"which parts of the book the final summary draws on: a strip chart over the book's length, " +
				'the share of chunks cited, the position bias and the chapters cited (each sentence cites the ' +
				'chunk and the chapter of its best evidence passage)',
		)
		.argument('<id>', `session id (see: ${commandLine(program, 'sessions')})`)
		.addOption(sessionsDirOption())
		.option(
			'--width <n>',
			"columns of the strip chart line (default: the terminal's, else 80)",
			integer('--width'),
		)
		.option(
			'--base-url <url>',
			'the OpenAI-compatible server of --embeddings (default: $OPENAI_BASE_URL, else OpenAI)',
		)
		.option(
			'--json',
			'print { chunks, sentences, weakly_supported, citing, cited, share, mean_position, halves: ' +
				'{ first, second, ratio }, lean, parts: [{ from, to, chunks, cited, share }], citations, chapters: ' +
				'[{ index, title, start, end, sentences }], strip }',
		)
		.action(async (id, flags) => {
			exit(
				await coverageCommand(resolveSessionsDir(flags.sessionsDir), id, {
					width: flags.width,
					json: !!flags.json,
					embeddings: embeddingsModel(flags.embeddings),
					baseUrl: flags.baseUrl,
				}),
			);
		});

export async function coverageCommand(
	dir: string,
	id: string,
	opts: {
		width?: number;
		json: boolean;
		stdout?: Stream;
		stderr?: Stream;
	} & EmbeddingsFlags,
): Promise<number> {
	if (opts.width !== undefined && (opts.width < LABELS + 1 || opts.width > 1000))
		throw badInput(`--width ${opts.width}: use a whole number from ${LABELS + 1} to 1000 (columns)`);
	const embeddings = embedderOf(opts);
	const stdout = opts.stdout ?? process.stdout;
	const out = output(stdout);
	const s = await evidenceSession(dir, id, undefined, 'coverage');
	const dense = await embeddings?.vectors(dir, id, s, opts.stderr ?? process.stderr);
	// A final summary of megabytes takes a while: its progress goes to stderr, and only the chunk
	// each sentence cites is kept.
	const progress = sentenceProgress(
		opts.stderr ?? process.stderr,
		`coverage of node ${s.node}`,
		nodeSentences(s),
	);
	const c = placedCoverage(s.data.run, s.book, s.index, s.chapters, (done) => progress.tick(done), dense)!;
	progress.end();
	const width = opts.width ?? terminalColumns(stdout) ?? 80;
	if (opts.json) out.json(finalCoverageJson(c, width), 2);
	else out.line(finalCoverageLines({ title: s.data.book.title, id, node: s.node }, c, width).join('\n'));
	return 0;
}
