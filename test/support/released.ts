/**
 * The shapes of the BooookScore authors' released files, as the tests read them to count against
 * and to break on purpose: labels and verdicts are plain strings here, so a test can put in a wrong one.
 */

/** summaries/*.json: book -> summary. */
export type Summaries = Record<string, string>;

/** annotations/*.json (v1 dict form): book -> sentence -> its questions and error types. */
export type Annotations = Record<string, Record<string, { questions: string; types: string[] }> | null>;

/** intermediate/*-hier.json: book -> levels of summaries, numbered from 0, and the final one. */
export type Hierarchical = Record<
	string,
	{ summaries_dict: Record<string, string[]>; final_summary: string }
>;

/** intermediate/*-inc.json: book -> the incremental steps. */
export type Incremental = Record<string, string[]>;

/** human_annotations/summary-*.json: book -> a summary and its human annotations. */
export type Human = Record<
	string,
	{
		summary: string;
		singles: { id: string; span: string; questions: string; labels: string[] }[];
		relations: {
			id_a: string;
			id_b: string;
			span_a: string;
			span_b: string;
			shared_questions: string;
			same: boolean;
			shared_labels: string[];
		}[];
	}
>;

/** human_annotations/annotations-*.json, the precision study: book -> a summary and its judged annotations. */
export type Study = Record<
	string,
	{
		summary: string;
		annotations: {
			source: string;
			agreement: string;
			reasons: string[] | null;
			explanation: string | string[] | null;
			anno: Record<string, unknown>;
		}[];
	}
>;
