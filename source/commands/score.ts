import { Command, Option } from '@commander-js/extra-typings';
import { DEFAULTS, resolveSessionsDir } from '../config.ts';
import type { AnnotateTotals } from '../engine/annotator.ts';
import { badInput } from '../errors.ts';
import { checkBaseUrl, keyVariable } from '../llm/base-url.ts';
import { defaultProvider } from '../llm/create.ts';
import type { SystemScore } from '../score/booookscore.ts';
import { LABELS } from '../score/labels.ts';
import { scoreSession, type SessionScore } from '../score/session-score.ts';
import { Session, type SessionData } from '../store/session.ts';
import { countTokens } from '../text/tokens.ts';
import {
	newCollection,
	scoreAgain,
	scoreReleasedFiles,
	sourceName,
	storedScoring,
	type ScoringOptions,
} from '../app/score.ts';
import { cancelOnSignal } from './interrupt.ts';
import { output, type Stream } from './output.ts';
import { progressReporter } from './progress.ts';
import {
	accountLimits,
	integer,
	PRICES_HELP,
	sessionsDirOption,
	withRateLimitOptions,
	type Exit,
} from './flags.ts';
import { ABANDON_BATCHES_HELP, refuseAwaitedBatches } from './batch-guard.ts';
import { fixed, scoreText } from '../format/number.ts';
import { usd } from '../format/cost.ts';
import { formatInt, counted } from '../format/count.ts';
import { points } from '../format/percent.ts';
import { commandLine } from '../program.ts';

export const spec = (exit: Exit) =>
	withRateLimitOptions(new Command('score'))
		.description(
			"BooookScore: of a session (a run's final summary, or a collection), annotating sentences a " +
				"model has not yet and asking again those it answered unreadably; or of the authors' files",
		)
		.argument('[id]', `session id (see: ${commandLine('sessions')})`)
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
	sessionsDir?: string;
	/** Make again the calls a study left in provider batches (see `refuseAwaitedBatches`). */
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
	checkNumbers(opts);
	if (opts.human || opts.annotations) return scoreFiles(opts);
	if (opts.id === undefined && !opts.summaries) {
		throw badInput(
			'nothing to score; give a session ID, --summaries FILE [--annotations FILE], or --human FILE',
		);
	}
	// Checked even when nothing needs annotating, so a bad address is never accepted silently.
	if (opts.baseUrl)
		checkBaseUrl(
			opts.baseUrl,
			'--base-url',
			keyVariable(opts.provider ?? defaultProvider(opts.env ?? process.env, opts.baseUrl)),
		);
	const sessionsDir = opts.sessionsDir ?? resolveSessionsDir(null, opts.env);
	if (opts.id !== undefined) {
		await refuseAwaitedBatches(sessionsDir, opts.id, opts.abandonBatches === true);
		const session = await Session.open(sessionsDir, opts.id);
		session.continueWith = scoreAgain(session);
		try {
			const lost = await session.lostWork();
			if (lost) output(opts.stderr ?? process.stderr).line(`warning: ${lost}`);
			return await scoreStored(session, opts);
		} finally {
			await session.close();
		}
	}
	// A new collection: everything that can fail on bad input or a missing key fails before it exists.
	const { session, file, count } = await newCollection(sessionsDir, opts.summaries!, opts);
	output(opts.stderr ?? process.stderr).line(
		`new collection session ${session.id} (${counted(count, 'summary', 'summaries')} from ${file}); continue a stopped scoring with: ${scoreAgain(session)}`,
	);
	try {
		return await scoreStored(session, opts);
	} finally {
		await session.close();
	}
}

function checkNumbers(opts: ScoreOptions): void {
	if (
		opts.concurrency !== undefined &&
		!(Number.isInteger(opts.concurrency) && opts.concurrency >= 1 && opts.concurrency <= 64)
	) {
		throw badInput(`--concurrency ${opts.concurrency}: use a whole number from 1 to 64`);
	}
	if (
		opts.batchSize !== undefined &&
		!(Number.isInteger(opts.batchSize) && opts.batchSize >= 1 && opts.batchSize <= 100)
	) {
		throw badInput(`--batch-size ${opts.batchSize}: use a whole number from 1 to 100 (sentences per call)`);
	}
}

async function scoreStored<D extends SessionData>(session: Session<D>, opts: ScoreOptions): Promise<number> {
	const stderr = opts.stderr ?? process.stderr;
	const { data } = session;
	const { chosen, annotator } = await storedScoring(session, opts);
	let totals: AnnotateTotals | null = null;
	if (annotator) {
		annotator.on(progressReporter(stderr));
		const status = await cancelOnSignal(
			() => annotator.cancel(),
			() => annotator.start(),
		);
		if (status === 'cancelled') {
			output(stderr).line(`stopped; the annotations so far are saved. Continue with: ${scoreAgain(session)}`);
			return 130;
		}
		if (status === 'failed') {
			output(stderr).text(
				`annotating failed: ${annotator.error ?? 'unknown error'}\nFix the cause, then continue with: ${scoreAgain(session)}\n`,
			);
			return 1;
		}
		totals = annotator.totals;
	}
	// The plans name each summary's verdict source; the verdicts are read afresh from what is stored now.
	const score = scoreSession(data.summaries, data.annotations, chosen.plans);
	report(
		score,
		{
			session: session.id,
			totals,
			again: `${chosen.unasked ?? 'run'} ${scoreAgain(session)} again to ask again`,
		},
		opts,
	);
	return 0;
}

function systemJson(system: SystemScore, texts: readonly string[]) {
	return {
		booookscore: system.score,
		summaries: system.scored,
		sentences: system.sentences,
		confusing: system.confusing,
		parse_failures: system.failures,
		avg_tokens: texts.length ? texts.reduce((s, t) => s + countTokens(t), 0) / texts.length : 0,
		types: system.types,
		books: Object.fromEntries(
			[...system.perBook].map(([book, s]) => [book, s.score === null ? null : 100 * s.score]),
		),
	};
}

function distributionLines(system: SystemScore): string[] {
	return [
		'error types per 100 sentences:',
		...LABELS.map((l) => `  ${l.padEnd(18)} ${fixed(system.distribution[l], 2)}  (${system.types[l]})`),
	];
}

function headline(label: string, r: ReturnType<typeof systemJson>): string {
	return (
		`${label} ${scoreText(r.booookscore, 'n/a')} over ${counted(r.summaries, 'summary', 'summaries')} ` +
		`(${counted(r.sentences, 'sentence')}, ${r.confusing} confusing, ${r.parse_failures} unparsed); ` +
		`average ${fixed(r.avg_tokens, 1)} tokens per summary`
	);
}

/** `again`: how to ask the model again about sentences whose answers could not be read. */
function report(
	score: SessionScore,
	extra: { session: string; totals: AnnotateTotals | null; again: string },
	opts: ScoreOptions,
): void {
	const stdout = output(opts.stdout ?? process.stdout);
	const stderr = output(opts.stderr ?? process.stderr);
	const texts = score.entries.map((e) => e.summary.text);
	const main = systemJson(score.system, texts);
	const human = score.human ? systemJson(score.human, texts) : null;
	const t = extra.totals;
	const annotators = [...new Set(score.entries.map((e) => sourceName(e.source)))];
	if (opts.json) {
		const out = {
			...main,
			session: extra.session,
			annotators,
			missing: score.missing,
			calls: t?.calls ?? 0,
			cached_tokens: t?.cached ?? 0,
			cost: t?.cost ?? 0,
			saved: t?.saved ?? 0,
			...(human ? { human } : {}),
		};
		stdout.json(out);
	} else {
		const lines = [headline('BooookScore', main), `annotations: ${annotators.join(', ')}`];
		if (human) lines.push(headline('from human annotations:', human));
		if (score.entries.length > 1)
			lines.push(
				'per book:',
				...score.entries.map(
					(e) => `  ${e.score.score === null ? '  n/a' : points(e.score.score).padStart(5)}  ${e.book}`,
				),
			);
		lines.push(...distributionLines(score.system));
		if (t && t.calls > 0) {
			lines.push(
				`${counted(t.calls, 'call')}: ${counted(t.input, 'input token')} (${formatInt(t.cached)} from ` +
					`the prompt cache), ${formatInt(t.output)} output, ${usd(t.cost)} (the cache saved ${usd(t.saved)})`,
			);
		}
		stdout.line(lines.join('\n'));
	}
	const failures = score.entries.flatMap((e) => e.failures.map((f) => ({ book: e.book, ...f })));
	if (failures.length > 0) {
		stderr.line(
			`warning: ${counted(failures.length, 'sentence')} had no readable answer after every retry ` +
				`and ${failures.length === 1 ? 'is' : 'are'} left out of the score (${extra.again}):`,
		);
		for (const f of failures) stderr.line(`  ${f.book}, sentence ${f.sentence + 1}: ${f.reason}`);
	}
	if (score.missing > 0)
		stderr.line(
			`warning: ${counted(score.missing, 'sentence')} have no annotation and are left out of the score`,
		);
}

/** The authors' files, scored without any model call (the paper's released annotations). */
async function scoreFiles(opts: ScoreOptions): Promise<number> {
	const stdout = output(opts.stdout ?? process.stdout);
	const stderr = output(opts.stderr ?? process.stderr);
	const { system, texts, notes, extra } = await scoreReleasedFiles(opts);
	const result = { ...systemJson(system, texts), ...extra };
	if (opts.json) stdout.json(result);
	else stdout.line([headline('BooookScore', result), ...distributionLines(system)].join('\n'));
	for (const note of notes) stderr.line(`note: ${note}`);
	return 0;
}
