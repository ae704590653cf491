import { counted } from '../format/count.ts';
import type { ClaimCheck, ClaimVerdict, FaithfulnessLabel, FaithfulnessVerdict } from '../domain.ts';
import { CLAIM_VERDICTS } from '../domain.ts';
import { collapseWhitespace } from '../text/runs.ts';
import { contentTokens } from '../text/textrank.ts';
import { checksOutcome, outcomeLabel } from './faithfulness-count.ts';

/**
 * Faithfulness judged FABLES' way (Kim et al., 2024): a summary sentence is split into atomic
 * claims, each claim is judged against passages of the book retrieved for it, with a quote from
 * them that is checked here to be word for word in a passage shown, and the sentence is as
 * faithful as its claims. Pure: prompt values and answers in, checks and labels out.
 */

/**
 * Passages retrieved per claim unless told (`--top`). The judge reads only what it is shown, so
 * this trades the right passage being there against a longer prompt (ten passages of at most 700
 * characters: some 1,800 tokens a claim). Chosen by the labelled set (bench/evidence.ts, "claims:
 * K for 95%"): with each sentence split into claims, 9 passages a claim show a right chapter for
 * 95% of the labelled sentences (whole sentences need 38); 10 leaves a margin.
 */
export const CLAIM_PASSAGES = 10;

/** A passage as the judge is given it: its text (whitespace collapsed), where it is, and its range in the book. */
export interface JudgeEvidence {
	text: string;
	where: string;
	start: number;
	end: number;
}

/** The claims prompt (prompts/faithfulness-claims.txt): the summary for context, the sentence to split. */
export function claimsPromptValues(summary: string, sentence: string): { summary: string; sentence: string } {
	return { summary, sentence };
}

export type Read<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * The most claims a sentence is split into: one per content word of it. An atomic claim states
 * at least one thing the sentence says, so an answer with more claims than that is inventing some.
 */
export function maxClaims(sentence: string): number {
	return Math.max(1, contentTokens(sentence).length);
}

/**
 * Reads a claims answer strictly: only lines `1. claim`, `2. claim`, ... numbered from 1 without a
 * gap, at least one and at most `maxClaims(sentence)`. Anything else is refused (and asked again),
 * never guessed from prose.
 */
export function readClaims(text: string, sentence: string): Read<string[]> {
	const lines = text
		.trim()
		.split(/\r?\n/u)
		.map((l) => l.trim())
		.filter((l) => l !== '');
	if (lines.length === 0) return { ok: false, reason: 'no claims listed' };
	const claims: string[] = [];
	for (const [i, line] of lines.entries()) {
		const m = /^(\d+)[.)]\s+(.+)$/u.exec(line);
		if (!m) return { ok: false, reason: `line ${i + 1} is not "${i + 1}. claim"` };
		if (Number(m[1]) !== i + 1)
			return { ok: false, reason: `line ${i + 1} is numbered ${m[1]}, expected ${i + 1}` };
		claims.push(m[2]!.trim());
	}
	const most = maxClaims(sentence);
	if (claims.length > most)
		return {
			ok: false,
			reason: `${counted(claims.length, 'claim')} for a sentence of ${counted(most, 'content word')}`,
		};
	return { ok: true, value: claims };
}

/** The claim judge's prompt (prompts/faithfulness-judge.txt), its passages numbered. */
export function claimPromptValues(
	sentence: string,
	claim: string,
	evidence: readonly Pick<JudgeEvidence, 'text' | 'where'>[],
): { sentence: string; claim: string; evidence: string } {
	const listed =
		evidence.length === 0
			? '(none found)'
			: evidence.map((e, i) => `[${i + 1}] (${e.where}) ${e.text}`).join('\n\n');
	return { sentence, claim, evidence: listed };
}

export type ClaimLabel = 'supported' | 'contradicted' | 'not found';

export interface ClaimAnswer {
	label: ClaimLabel;
	/** Null when the judge wrote "none". */
	quote: string | null;
	reason: string;
}

const CLAIM_LABELS: Record<string, ClaimLabel> = {
	supported: 'supported',
	contradicted: 'contradicted',
	'not found': 'not found',
};

/**
 * Reads a claim judge's answer strictly: exactly a `Label:` line (supported, contradicted or not
 * found), a `Quote:` line (words copied from one passage, or "none"), and a non-empty `Reason:`
 * line, in that order and nothing else. A supported or contradicted claim must quote something.
 */
export function readClaimAnswer(text: string): Read<ClaimAnswer> {
	const lines = text
		.trim()
		.split(/\r?\n/u)
		.map((l) => l.trim())
		.filter((l) => l !== '');
	if (lines.length !== 3)
		return { ok: false, reason: `expected three lines (Label, Quote, Reason), got ${lines.length}` };
	const label = /^label:\s*(.+)$/iu.exec(lines[0]!);
	const quote = /^quote:\s*(.+)$/iu.exec(lines[1]!);
	const reason = /^reason:\s*(.+)$/iu.exec(lines[2]!);
	if (!label) return { ok: false, reason: 'the first line is not "Label: ..."' };
	if (!quote) return { ok: false, reason: 'the second line is not "Quote: ..."' };
	if (!reason) return { ok: false, reason: 'the third line is not "Reason: ..."' };
	const value =
		CLAIM_LABELS[
			label[1]!
				.trim()
				.toLowerCase()
				.replace(/[.\s]+$/u, '')
		];
	if (!value)
		return {
			ok: false,
			reason: `unknown label "${label[1]!.trim()}"; expected supported, contradicted or not found`,
		};
	const said = unquoted(quote[1]!);
	const none = /^none\.?$/iu.test(said) || said === '';
	if (none && value !== 'not found')
		return { ok: false, reason: `a ${value} claim needs a quote from the passages` };
	return { ok: true, value: { label: value, quote: none ? null : said, reason: reason[1]!.trim() } };
}

/** The quote without one pair of quotation marks around it, as judges often write it. */
function unquoted(text: string): string {
	const t = text.trim();
	const m = /^(["“'‘])(.*)(["”'’])$/su.exec(t);
	return (m ? m[2]! : t).trim();
}

/**
 * Text as a quote is compared: whitespace collapsed, and curly quotation marks and apostrophes as
 * straight ones (a model retyping "don’t" as "don't" has still copied it).
 */
function comparable(text: string): string {
	return collapseWhitespace(text.replace(/[‘’]/gu, "'").replace(/[“”]/gu, '"')).trim();
}

/**
 * A quote as the pieces to find: its parts between ellipses ("he sprang … upon the ice"), which
 * must appear in one passage in that order. Null when it holds no content word: "the" or "…" is
 * word for word in almost any passage and shows nothing.
 */
function quotePieces(quote: string): string[] | null {
	if (contentTokens(quote).length === 0) return null;
	const pieces = comparable(quote)
		.split(/\s*(?:\.\.\.|…)\s*/u)
		.filter((p) => p !== '');
	return pieces.length === 0 ? null : pieces;
}

function holdsInOrder(text: string, pieces: readonly string[]): boolean {
	let at = 0;
	for (const piece of pieces) {
		const found = text.indexOf(piece, at);
		if (found < 0) return false;
		at = found + piece.length;
	}
	return true;
}

/**
 * The claim's check: the judge's answer (null when none could be read) against the passages it
 * was shown. A supported or contradicted claim counts only when its quote (with a content word) is
 * word for word in one of them, its parts between ellipses in order; otherwise it is `unquoted`.
 */
export function checkClaim(
	claim: string,
	answer: ClaimAnswer | null,
	evidence: readonly Pick<JudgeEvidence, 'text' | 'start' | 'end'>[],
): ClaimCheck {
	if (answer === null) return { claim, verdict: 'unreadable', quote: null, passage: null, reason: null };
	const quote = answer.quote === null ? null : quotePieces(answer.quote);
	const holder = quote === null ? undefined : evidence.find((e) => holdsInOrder(comparable(e.text), quote));
	const passage = holder ? { start: holder.start, end: holder.end } : null;
	const verdict: ClaimVerdict = answer.label !== 'not found' && passage === null ? 'unquoted' : answer.label;
	return { claim, verdict, quote: answer.quote, passage, reason: answer.reason };
}

/**
 * The sentence's label, stored with the verdict (see `checksOutcome`): unfaithful when any claim is
 * contradicted or not found, LongEval's "not present" being unfaithful too; faithful when every
 * claim is supported; else "can't tell" (a claim unquoted or unreadable, none against it).
 */
export function sentenceLabel(checks: readonly Pick<ClaimCheck, 'verdict'>[]): FaithfulnessLabel {
	return outcomeLabel(checksOutcome(checks));
}

/** The verdict's note: how its claims came out ("3 claims: 2 supported, 1 not found"), and a split not read. */
export function claimsNote(
	checks: readonly Pick<ClaimCheck, 'verdict'>[],
	split: 'read' | 'unreadable',
): string {
	const counts = new Map<ClaimVerdict, number>();
	for (const c of checks) counts.set(c.verdict, (counts.get(c.verdict) ?? 0) + 1);
	const parts = [...counts].map(([verdict, n]) => `${n} ${verdict}`);
	const head =
		split === 'read' ? counted(checks.length, 'claim') : 'judged whole (its claims answer was unreadable)';
	return `${head}: ${parts.join(', ')}`;
}

/** A model judge's claims over its verdicts: how many, by verdict, and the sentences judged whole. */
export interface ClaimTally {
	claims: number;
	verdicts: Record<ClaimVerdict, number>;
	/** Sentences whose claims answer could not be read (judged as one claim). */
	unsplit: number;
}

/** The claims of `verdicts` counted; null when none has claims (a person's, or a judge's from before claims). */
export function claimTally(
	verdicts: Iterable<Pick<FaithfulnessVerdict, 'claims' | 'split'>>,
): ClaimTally | null {
	const tally: ClaimTally = {
		claims: 0,
		verdicts: Object.fromEntries(CLAIM_VERDICTS.map((v) => [v, 0])) as Record<ClaimVerdict, number>,
		unsplit: 0,
	};
	let any = false;
	for (const v of verdicts) {
		if (!v.claims) continue;
		any = true;
		tally.claims += v.claims.length;
		for (const c of v.claims) tally.verdicts[c.verdict] += 1;
		if (v.split === 'unreadable') tally.unsplit += 1;
	}
	return any ? tally : null;
}
