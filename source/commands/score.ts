import { Command, Option } from '@commander-js/extra-typings';
import { checkScoring, DEFAULTS, resolveSessionsDir } from '../config.ts';
import { badInput } from '../errors.ts';
import { scoreReleasedFiles, type ScoringOptions } from '../app/score.ts';
import { openScoring, systemFigures } from '../app/score-session.ts';
import { cancelOnSignal } from './interrupt.ts';
import { output, type Stream } from './output.ts';
import { progressReporter } from './progress.ts';
import { integer, PRICES_HELP, sessionsDirOption, withRateLimitOptions, type Exit } from './flags.ts';
import { accountLimits } from '../app/services.ts';
import { ABANDON_BATCHES_HELP } from './batch-guard.ts';
import { batchesLine } from '../format/open-refusal.ts';
import {
	annotatingEndText,
	collectionLine,
	distributionLines,
	headline,
	leftOutLines,
	scoreJson,
	scoreLines,
	systemJson,
	unaskedWords,
} from '../format/score.ts';
import { commandLine, say } from '../program.ts';

export const spec = (exit: Exit, program: string) =>
	withRateLimitOptions(new Command('score'))
		.description(
			"BooookScore: of a session (a run's final summary, or a collection), annotating sentences a " +
				"model has not yet and asking again those it answered unreadably; or of the authors' files",
		)
		.argument('[id]', `session id (see: ${commandLine(program, 'sessions')})`)
		.option(
			'--summaries <file>',
			"the authors' summaries JSON ({ book: summary }); without --annotations they are annotated in a new collection session",
		)
		.option('--annotations <file>', "the authors' model annotations JSON for those summaries (no model call)")
		.option(
			'--human <file>',
			"the authors' human annotations JSON (summary-*.json: each span and relation is one confusing sentence)",
		)
		.addOption(
			new Option(
				'--provider <name>',
				'annotate with openai or anthropic (default: the model the session used, else whichever API key is set)',
			).choices(['openai', 'anthropic', 'extractive']),
		)
		.option(
			'--model <name>',
			'the annotating model (default: gpt-4o-mini or claude-sonnet-4-6); naming a provider or model scores only its annotations',
		)
		.option(
			'--base-url <url>',
			"an OpenAI-compatible (or Anthropic) server (default: a run's own server when it is scored " +
				"with the run's model, else $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)",
		)
		.option(
			'--concurrency <n>',
			'most annotation calls at once',
			integer('--concurrency'),
			DEFAULTS.concurrency,
		)
		.option(
			'--batch-size <n>',
			"N numbered sentences per call with the authors' batched (v2) prompt; default one sentence per call (v1)",
			integer('--batch-size'),
		)
		.option(
			'--prompts <dir>',
			'read get_annotations(.txt|_v2.txt) from this folder (missing ones come from prompts/)',
		)
		.option('--prices <file>', PRICES_HELP)
		.option('--abandon-batches', ABANDON_BATCHES_HELP)
		.addOption(sessionsDirOption())
		.option(
			'--json',
			'print { booookscore, summaries, sentences, confusing, parse_failures, avg_tokens, types, books, ... }',
		)
		.action(async (id, flags) => {
			exit(
				await scoreCommand({
					...flags,
					id,
					sessionsDir: resolveSessionsDir(flags.sessionsDir),
					json: !!flags.json,
					account: accountLimits(flags),
					program,
				}),
			);
		});

export interface ScoreOptions extends ScoringOptions {
	/** A session to score (annotating its missing sentences first). */
	id?: string;
	summaries?: string;
	annotations?: string;
	human?: string;
	json: boolean;
	/** How booook was started, for the command lines printed. */
	program: string;
	sessionsDir?: string;
	/** Make again the calls a study left in provider batches (see `batchesAwaited`). */
	abandonBatches?: boolean;
	stdout?: Stream;
	stderr?: Stream;
}

/**
 * `booook score`: a session (`ID`; a book run's final summary, or every summary of a collection),
 * summaries from a file (`--summaries F`, annotated by a model in a new collection session), or the
 * authors' files (`--summaries F --annotations F`, `--human F`) scored without any model call.
 */
export async function scoreCommand(opts: ScoreOptions): Promise<number> {
	if (opts.id !== undefined && (opts.summaries || opts.annotations || opts.human)) {
		throw badInput('score either a session (ID) or files (--summaries, --annotations, --human), not both');
	}
	// Checked even when no call is made: a bad number is never accepted silently.
	checkScoring(opts);
	if (opts.human || opts.annotations) return scoreFiles(opts);
	if (opts.id === undefined && !opts.summaries) {
		throw badInput(
			'nothing to score; give a session ID, --summaries FILE [--annotations FILE], or --human FILE',
		);
	}
	const stderr = output(opts.stderr ?? process.stderr);
	const started = await openScoring(
		opts.sessionsDir ?? resolveSessionsDir(null, opts.env),
		opts.id !== undefined ? { id: opts.id } : { summaries: opts.summaries! },
		opts,
		{ lostWork: (warning) => stderr.line(`warning: ${say(warning, opts.program)}`) },
	);
	if (started.kind === 'refused') throw badInput(batchesLine(started.reason, 'add --abandon-batches'));
	const { scoring } = started;
	const again = commandLine(opts.program, scoring.again);
	if (scoring.created) stderr.line(collectionLine(scoring.session.id, scoring.created, again));
	try {
		const { annotator } = scoring;
		annotator?.on(progressReporter(opts.stderr ?? process.stderr));
		const status = annotator
			? await cancelOnSignal(
					() => annotator.cancel(),
					() => annotator.start(),
				)
			: 'done';
		if (status !== 'done') {
			stderr.line(annotatingEndText(status, annotator?.error ?? null, again));
			return status === 'cancelled' ? 130 : 1;
		}
		// The score printed: its figures on stdout, the sentences left out of it on stderr.
		const result = scoring.result();
		const extra = {
			session: scoring.session.id,
			totals: annotator?.totals ?? null,
			again: `${unaskedWords(scoring.unasked)} ${again} again to ask again`,
		};
		const stdout = output(opts.stdout ?? process.stdout);
		if (opts.json) stdout.json(scoreJson(result, extra));
		else stdout.line(scoreLines(result, extra.totals).join('\n'));
		for (const line of leftOutLines(result.score, extra.again)) stderr.line(line);
		return 0;
	} finally {
		await scoring.close();
	}
}

/** The authors' files, scored without any model call (the paper's released annotations). */
async function scoreFiles(opts: ScoreOptions): Promise<number> {
	const stdout = output(opts.stdout ?? process.stdout);
	const stderr = output(opts.stderr ?? process.stderr);
	const { system, texts, notes, extra } = await scoreReleasedFiles(opts);
	const figures = systemFigures(system, texts);
	if (opts.json) stdout.json({ ...systemJson(figures), ...extra });
	else stdout.line([headline('BooookScore', figures), ...distributionLines(figures)].join('\n'));
	for (const note of notes) stderr.line(`note: ${note}`);
	return 0;
}
