/**
 * The fake model's answers to the faithfulness judge's prompts (the shipped templates' layout),
 * read from the prompt alone as the annotation fake does: a claims prompt is split at "and", ";"
 * and ", "; a claim prompt is "supported" with the claim itself as the quote when a passage shown
 * holds it word for word, else "not found".
 */

function between(prompt: string, open: string, close: string): string | null {
	const at = prompt.lastIndexOf(open);
	if (at < 0) return null;
	const end = prompt.indexOf(close, at + open.length);
	return end < 0 ? null : prompt.slice(at + open.length, end);
}

/** The sentence a claims prompt asks to split, or null for another prompt. */
export function claimsQuestion(prompt: string): string | null {
	return between(prompt, 'The sentence to split:\n', '\n\nAnswer with the claims only');
}

/** The claim a claim-judge prompt asks about and the passages it shows, or null for another prompt. */
export function claimQuestion(prompt: string): { claim: string; passages: string[] } | null {
	const claim = between(prompt, 'The claim to check:\n', '\n\nPassages of the book');
	const listed = between(prompt, 'they may also be unhelpful):\n', '\n\nAnswer in exactly three lines');
	if (claim === null || listed === null) return null;
	const passages =
		listed === '(none found)'
			? []
			: listed.split(/\n\n(?=\[\d+\] )/u).map((p) => p.replace(/^\[\d+\] \([^)]*\) /u, ''));
	return { claim, passages };
}

/** The fake's claims of a sentence: its parts between "and", ";" and ", ", without the final stop. */
export function fakeClaims(sentence: string): string[] {
	return sentence
		.replace(/[.!?]+$/u, '')
		.split(/;\s+|,?\s+and\s+|,\s+/u)
		.map((part) => part.trim())
		.filter((part) => part !== '');
}

/** A well-formed answer to either faithfulness prompt, or null for other prompts. */
export function faithfulnessReply(prompt: string): string | null {
	const sentence = claimsQuestion(prompt);
	if (sentence !== null)
		return fakeClaims(sentence)
			.map((claim, i) => `${i + 1}. ${claim}`)
			.join('\n');
	const asked = claimQuestion(prompt);
	if (!asked) return null;
	const holder = asked.passages.findIndex((p) => p.includes(asked.claim));
	return holder >= 0
		? `Label: supported\nQuote: ${asked.claim}\nReason: passage ${holder + 1} states it.`
		: 'Label: not found\nQuote: none\nReason: no passage states it.';
}
