import { Parser } from 'htmlparser2';
import { collapseWhitespace } from '../text/runs.ts';

/**
 * (X)HTML -> paragraphs of plain text. Pure. Block elements end a paragraph, inline ones do not,
 * so `<p>Mr. <em>Darcy</em></p>` stays one paragraph while nested divs give one per block of text.
 */

// Everything that starts a new line in a browser. Table cells are not here: a row is one paragraph.
const BLOCKS = new Set([
	'address',
	'article',
	'aside',
	'blockquote',
	'body',
	'br',
	'caption',
	'center',
	'dd',
	'details',
	'dialog',
	'div',
	'dl',
	'dt',
	'fieldset',
	'figcaption',
	'figure',
	'footer',
	'form',
	'h1',
	'h2',
	'h3',
	'h4',
	'h5',
	'h6',
	'header',
	'hgroup',
	'hr',
	'html',
	'legend',
	'li',
	'main',
	'nav',
	'ol',
	'p',
	'pre',
	'section',
	'summary',
	'table',
	'tbody',
	'tfoot',
	'thead',
	'tr',
	'ul',
]);
// Content that is not part of the text a reader sees. `rt`/`rp` are ruby annotations (reading
// aids over the base text), which would otherwise be glued into the words they annotate.
const SKIPPED = new Set(['head', 'script', 'style', 'template', 'title', 'rt', 'rp']);
const CELLS = new Set(['td', 'th']);

export function htmlToParagraphs(markup: string): string[] {
	const paragraphs: string[] = [];
	let current = '';
	let skipDepth = 0;
	let preDepth = 0;

	const flush = () => {
		// \s also covers no-break spaces, so `<p>&nbsp;</p>` (a common spacer) leaves nothing.
		// Not a regex replace, which held a record of every match: a paragraph can be megabytes.
		const paragraph = collapseWhitespace(current).trim();
		if (paragraph !== '') paragraphs.push(paragraph);
		current = '';
	};

	const parser = new Parser(
		{
			onopentag(name) {
				if (SKIPPED.has(name)) skipDepth++;
				else if (skipDepth > 0) return;
				else if (BLOCKS.has(name)) flush();
				else if (CELLS.has(name)) current += ' ';
				if (name === 'pre') preDepth++;
			},
			onclosetag(name) {
				if (SKIPPED.has(name)) skipDepth = Math.max(0, skipDepth - 1);
				else if (skipDepth > 0) return;
				else if (BLOCKS.has(name)) flush();
				else if (CELLS.has(name)) current += ' ';
				if (name === 'pre') preDepth = Math.max(0, preDepth - 1);
			},
			ontext(data) {
				if (skipDepth > 0) return;
				if (preDepth === 0) {
					current += data;
					return;
				}
				// A line of preformatted text (verse, letters) is its own paragraph, as a <br> would be.
				const lines = data.split(/\r\n?|\n/);
				lines.forEach((line, i) => {
					if (i > 0) flush();
					current += line;
				});
			},
		},
		// HTML mode decodes HTML's named entities (&nbsp;, &mdash;), which EPUB XHTML often uses;
		// self-closing tags must still close, or `<script src="x"/>` would swallow the rest.
		{ recognizeSelfClosing: true, recognizeCDATA: true },
	);
	parser.write(markup);
	parser.end();
	flush();
	return paragraphs;
}
