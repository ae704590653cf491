import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import JSZip from 'jszip';
import { readBook } from '../../source/book/read.ts';
import { zipOf, type ZipEntry } from '../support/zip.ts';
import { UserError } from '../../source/errors.ts';
import { tempDir } from '../support/temp.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

const dir = tempDir('book-test');

async function fixture(name: string, content: string | Uint8Array): Promise<string> {
	const path = join(dir, name);
	await writeFile(path, content);
	return path;
}

/** Every file under `root`, so a test can show that reading created nothing. */
async function listing(root: string): Promise<string[]> {
	return (await readdir(root, { recursive: true })).map(String).sort();
}

/** Reading `path` fails with a one-line exit-code-2 message naming the file and matching `problem`. */
async function assertBadInput(path: string, problem: RegExp): Promise<void> {
	const before = await listing(dir);
	await assert.rejects(readBook(path), (error: unknown) => {
		assert.ok(error instanceof UserError, `expected a UserError, got ${String(error)}`);
		assert.equal(error.exitCode, 2);
		assert.ok(error.message.startsWith(`${path}: `), `message should name the file: ${error.message}`);
		assert.match(error.message, problem);
		assert.doesNotMatch(error.message, /\n/);
		// Each message also says what to do, after the problem.
		assert.match(error.message, /; \S/);
		return true;
	});
	assert.deepEqual(await listing(dir), before, 'reading a book must not create files');
}

// ---- EPUB fixtures ------------------------------------------------------------------------------

const CONTAINER = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
	<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`;

function opf({
	title = '<dc:title>Tom &amp; Jerry: A Tale</dc:title>',
	manifest = '',
	spine = '',
} = {}): string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
	<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">${title}<dc:language>en</dc:language></metadata>
	<manifest>${manifest}</manifest>
	<spine>${spine}</spine>
</package>`;
}

function xhtml(body: string, head = '<title>Running head</title>'): string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"><head>${head}</head><body>${body}</body></html>`;
}

const MANIFEST = `
	<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
	<item id="one" href="Text/chapter%20one.xhtml" media-type="application/xhtml+xml"/>
	<item id="two" href="Text/../two.xhtml#start" media-type="application/xhtml+xml"/>
	<item id="css" href="style.css" media-type="text/css"/>`;

// The manifest lists one before two; the spine reads two first. nav is in the manifest only.
const SPINE = '<itemref idref="two"/><itemref idref="one"/>';

const CHAPTER_ONE = xhtml(
	`<h1>Chapter&#160;One</h1>
	<div class="outer"><div class="inner"><p>Tom &amp; Jerry said &ldquo;hello&rdquo;&#8212;twice.</p>
	<p>Line one<br/>line   two,
	  wrapped</p></div>Tail of the outer div</div>
	<script type="text/javascript">var hidden = "SCRIPT TEXT";</script>
	<p>&nbsp;</p>
	<ul><li>First <em>item</em></li><li>Second&#x2019;s item</li></ul>`,
	'<title>Running head</title><style>p { color: red } /* STYLE TEXT */</style>',
);
const CHAPTER_TWO = xhtml(
	`<section><h2>Prologue</h2><blockquote>A quote &lt;with&gt; brackets</blockquote><p>Mr.&nbsp;<span>Dar</span>cy</p></section>
	<script src="app.js"/><p>After a self-closing script</p>`,
);

// Written by hand from the requirements, not from the code's output.
const EXPECTED_TEXT = [
	'Prologue',
	'A quote <with> brackets',
	'Mr. Darcy',
	'After a self-closing script',
	'Chapter One',
	'Tom & Jerry said \u201chello\u201d\u2014twice.',
	'Line one',
	'line two, wrapped',
	'Tail of the outer div',
	'First item',
	'Second\u2019s item',
].join('\n\n');

async function epub(files: Record<string, string | Uint8Array>, name: string): Promise<string> {
	const zip = new JSZip();
	zip.file('mimetype', 'application/epub+zip');
	for (const [path, content] of Object.entries(files)) zip.file(path, content);
	return fixture(name, await zip.generateAsync({ type: 'uint8array' }));
}

function goodEpubFiles(): Record<string, string> {
	return {
		'META-INF/container.xml': CONTAINER,
		'OEBPS/content.opf': opf({ manifest: MANIFEST, spine: SPINE }),
		'OEBPS/nav.xhtml': xhtml('<nav><ol><li>NAV TEXT</li></ol></nav>'),
		'OEBPS/Text/chapter one.xhtml': CHAPTER_ONE,
		'OEBPS/two.xhtml': CHAPTER_TWO,
		'OEBPS/style.css': 'p { margin: 0 }',
	};
}

// ---- .txt ---------------------------------------------------------------------------------------

test('txt: BOM is stripped and CRLF and lone CR become LF', async () => {
	const path = await fixture(
		'crlf.txt',
		'\ufeffMy Book\r\n\r\nFirst line\rsecond line\r\n  indented\r\n\r\n',
	);
	const book = await readBook(path);
	assert.equal(book.text, 'My Book\n\nFirst line second line\n  indented');
	assert.equal(book.sha256, createHash('sha256').update(book.text).digest('hex'));
	assert.equal(book.source, path);
	assert.ok(isAbsolute(book.source));
	assert.equal(book.title, 'My Book');
});

test('txt: the same text with different line ends and a BOM has the same sha256', async () => {
	const lf = await readBook(await fixture('lf.txt', 'Title\n\nA line.\nAnother line.\n'));
	const crlf = await readBook(await fixture('crlf2.txt', '\ufeffTitle\r\n\r\nA line.\r\nAnother line.'));
	assert.equal(lf.text, crlf.text);
	assert.equal(lf.sha256, crlf.sha256);
	assert.match(lf.sha256, /^[0-9a-f]{64}$/);
});

test('txt: leading whitespace and inner text are kept; spaces at line ends are not', async () => {
	const body = '\n\n  Letter 1 \n\n\tTabbed\fform feed  \n\n\n\nEnd.';
	const book = await readBook(await fixture('keep.txt', body + ' \n\n '));
	assert.equal(book.text, '\n\n  Letter 1\n\n\tTabbed\fform feed\n\n\n\nEnd.');
});

test('txt: a text containing <|endoftext|> reads fine', async () => {
	const body = 'Special\n\nThe model wrote <|endoftext|> and went on. <|im_start|> too.';
	const book = await readBook(await fixture('special.txt', body));
	assert.equal(book.text, body);
	assert.ok(book.text.includes('<|endoftext|>'));
});

test('txt: the extension is matched case-insensitively', async () => {
	const book = await readBook(await fixture('UPPER.TXT', 'Some text.'));
	assert.equal(book.text, 'Some text.');
});

test('txt: title is the first line when it stands alone, else the file name', async () => {
	assert.equal(
		(await readBook(await fixture('a.txt', '\n\n  The   Long Voyage \n\nIt began.'))).title,
		'The Long Voyage',
	);
	// A section heading is not the book's title.
	assert.equal(
		(await readBook(await fixture('the-long_voyage.txt', 'Chapter 1\n\nIt began.'))).title,
		'The long voyage',
	);
	assert.equal((await readBook(await fixture('roman.txt', 'IV.\n\nIt began.'))).title, 'Roman');
	// A first line that runs on into the next one is prose, not a title.
	assert.equal(
		(await readBook(await fixture('wrapped.txt', 'It is a truth universally acknowledged,\nthat a man...')))
			.title,
		'Wrapped',
	);
	// A first line of 100 characters or more is not a title.
	assert.equal((await readBook(await fixture('Long.txt', `${'word '.repeat(30)}\n\nmore`))).title, 'Long');
	// A Gutenberg header names the title explicitly.
	const gutenberg =
		'The Project Gutenberg eBook of Something\n\nTitle: Frankenstein\n\nAuthor: Mary Shelley\n\nLetter 1';
	assert.equal((await readBook(await fixture('pg84.txt', gutenberg))).title, 'Frankenstein');
});

test('txt: Frankenstein reads with a sensible title', async () => {
	const book = await readBook(FRANKENSTEIN);
	assert.match(book.title, /frankenstein/i);
	assert.doesNotMatch(book.title, /letter/i);
	assert.ok(book.text.length > 400_000);
	assert.ok(!book.text.includes('\r'));
	assert.ok(book.text.includes('St. Petersburgh, Dec. 11th'));
	assert.equal(book.text, book.text.trimEnd());
	assert.equal(book.source, FRANKENSTEIN);
});

// ---- EPUB ---------------------------------------------------------------------------------------

test('epub: spine order, paragraphs separated, entities decoded, markup gone', async () => {
	const book = await readBook(await epub(goodEpubFiles(), 'good.epub'));
	assert.equal(book.text, EXPECTED_TEXT);
	assert.equal(book.title, 'Tom & Jerry: A Tale');
	for (const hidden of ['SCRIPT TEXT', 'STYLE TEXT', 'Running head', 'NAV TEXT', '<p', '<br', 'nbsp', '&#']) {
		assert.ok(!book.text.includes(hidden), `text should not contain ${hidden}`);
	}
	assert.ok(
		book.text.indexOf('Prologue') < book.text.indexOf('Chapter One'),
		'spine order, not manifest order',
	);
	assert.equal(book.sha256, createHash('sha256').update(book.text).digest('hex'));
});

test('epub: .EPUB extension, prefixed OPF tags, no dc:title falls back to the file name', async () => {
	const files = goodEpubFiles();
	files['OEBPS/content.opf'] = opf({ title: '', manifest: MANIFEST, spine: SPINE })
		.replace(/<(\/?)(package|manifest|spine|item|itemref)\b/g, '<$1opf:$2')
		.replace('xmlns="http://www.idpf.org/2007/opf"', 'xmlns:opf="http://www.idpf.org/2007/opf"');
	const book = await readBook(await epub(files, 'no-title_book.EPUB'));
	assert.equal(book.text, EXPECTED_TEXT);
	assert.equal(book.title, 'No title book');
});

test('epub: spine items with linear="no" are left out of the reading order', async () => {
	const files = goodEpubFiles();
	files['OEBPS/content.opf'] = opf({
		manifest: MANIFEST,
		spine: '<itemref idref="nav" linear="no"/>' + SPINE,
	});
	assert.equal((await readBook(await epub(files, 'nonlinear.epub'))).text, EXPECTED_TEXT);
});

// ---- bad input ----------------------------------------------------------------------------------

test('bad input: missing file', async () => {
	await assertBadInput(join(dir, 'nope.txt'), /no such file/);
	await assertBadInput(join(dir, 'no-dir', 'nope.epub'), /no such file/);
});

test('bad input: a directory', async () => {
	const sub = join(dir, 'folder.txt');
	await mkdir(sub, { recursive: true });
	await assertBadInput(sub, /directory/);
});

test('bad input: empty and whitespace-only files', async () => {
	await assertBadInput(await fixture('empty.txt', ''), /empty/);
	await assertBadInput(await fixture('blank.txt', ' \r\n\t\n  \n'), /empty/);
	await assertBadInput(await fixture('bom-only.txt', '\ufeff\n'), /empty/);
});

test('bad input: binary content', async () => {
	// One NUL in a long text: the share of control characters alone would not reject it.
	const nul = Buffer.from(`${'A plain line of text.\n'.repeat(50)}\0${'More text.\n'.repeat(50)}`);
	await assertBadInput(await fixture('nul.txt', nul), /binary.*NUL/);
	const controls = 'ab\x01\x02\x03\x04\x05\x06cd\x07\x08\x0e\x0f\x10'.repeat(20);
	await assertBadInput(await fixture('controls.txt', controls), /binary.*control characters/);
	// A few stray control characters in a real text are kept.
	const stray = `Title\n\n${'Some words here.\n'.repeat(20)}\x0b\x1a`;
	assert.equal(
		(await readBook(await fixture('stray.txt', stray))).text,
		`Title\n\n${'Some words here. '.repeat(20)}\x0b\x1a`,
	);
	await assertBadInput(await fixture('utf16.txt', new Uint8Array([0xff, 0xfe, 0x48, 0x00])), /UTF-16/);
});

test('bad input: invalid UTF-8', async () => {
	const bytes = new Uint8Array([...Buffer.from('Caf'), 0xc3, 0x28, ...Buffer.from(' au lait\n')]);
	await assertBadInput(await fixture('latin.txt', bytes), /UTF-8/);
});

test('bad input: unsupported file types', async () => {
	const pdf = await fixture('book.pdf', '%PDF-1.4');
	await assertBadInput(pdf, /unsupported file type "\.pdf"/);
	await assertBadInput(pdf, /\.txt.*\.epub/);
	await assertBadInput(await fixture('README', 'text'), /unsupported file type \(no extension\)/);
	await assertBadInput(await fixture('notes.md', '# text'), /unsupported file type "\.md"/);
});

test('bad input: broken EPUBs', async () => {
	await assertBadInput(await fixture('text.epub', 'this is not a zip'), /not a zip/);

	const noContainer = goodEpubFiles();
	delete noContainer['META-INF/container.xml'];
	await assertBadInput(await epub(noContainer, 'no-container.epub'), /container\.xml/);

	const noRootfile = goodEpubFiles();
	noRootfile['META-INF/container.xml'] = '<container><rootfiles></rootfiles></container>';
	await assertBadInput(await epub(noRootfile, 'no-rootfile.epub'), /no package/);

	const noOpf = goodEpubFiles();
	delete noOpf['OEBPS/content.opf'];
	await assertBadInput(await epub(noOpf, 'no-opf.epub'), /content\.opf.*missing/);

	const emptySpine = goodEpubFiles();
	emptySpine['OEBPS/content.opf'] = opf({ manifest: MANIFEST, spine: '' });
	await assertBadInput(await epub(emptySpine, 'empty-spine.epub'), /spine.*no documents/);

	const missingItem = goodEpubFiles();
	delete missingItem['OEBPS/two.xhtml'];
	await assertBadInput(await epub(missingItem, 'missing-item.epub'), /two\.xhtml.*missing from the archive/);

	const unknownId = goodEpubFiles();
	unknownId['OEBPS/content.opf'] = opf({ manifest: MANIFEST, spine: '<itemref idref="three"/>' });
	await assertBadInput(await epub(unknownId, 'unknown-id.epub'), /"three" is not in the manifest/);

	const noText = goodEpubFiles();
	noText['OEBPS/two.xhtml'] = xhtml(
		'<div><img src="cover.jpg" alt="Cover"/></div><script>var x = "code";</script>',
	);
	noText['OEBPS/content.opf'] = opf({ manifest: MANIFEST, spine: '<itemref idref="two"/>' });
	await assertBadInput(await epub(noText, 'no-text.epub'), /no text/);

	const badBytes = goodEpubFiles() as Record<string, string | Uint8Array>;
	badBytes['OEBPS/two.xhtml'] = new Uint8Array([0x3c, 0x70, 0x3e, 0xc3, 0x28, 0x3c, 0x2f, 0x70, 0x3e]);
	await assertBadInput(await epub(badBytes, 'bad-bytes.epub'), /two\.xhtml.*not valid utf-8/);
});

// ---- zip bombs ----------------------------------------------------------------------------------

/**
 * An XHTML file of `megabytes` MB of spaces inside a paragraph, as raw DEFLATE data of about 1 KB
 * per MB: one fully flushed block of a megabyte of spaces, repeated (a full flush leaves nothing
 * for later blocks to refer back to, so copies can be joined).
 */
function bombXhtml(megabytes: number): ZipEntry {
	const head = Buffer.from(
		'<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>Bomb',
	);
	const tail = Buffer.from('</p></body></html>');
	const spaces = Buffer.alloc(1024 * 1024, 0x20);
	const flushed = { finishFlush: constants.Z_FULL_FLUSH };
	const block = deflateRawSync(spaces, flushed);
	const data = Buffer.concat([
		deflateRawSync(head, flushed),
		...Array.from({ length: megabytes }, () => block),
		deflateRawSync(tail),
	]);
	let crc = crc32(head);
	for (let i = 0; i < megabytes; i++) crc = crc32(spaces, crc);
	return {
		name: 'OEBPS/bomb.xhtml',
		data,
		size: head.length + megabytes * spaces.length + tail.length,
		crc: crc32(tail, crc),
	};
}

function bombEpub(bomb: ZipEntry, reads: number): Uint8Array {
	const manifest = Array.from(
		{ length: reads },
		(_, i) => `<item id="b${i}" href="bomb.xhtml" media-type="application/xhtml+xml"/>`,
	).join('');
	const spine = Array.from({ length: reads }, (_, i) => `<itemref idref="b${i}"/>`).join('');
	const stored = (name: string, text: string): ZipEntry => ({ name, data: Buffer.from(text) });
	return zipOf([
		stored('mimetype', 'application/epub+zip'),
		stored('META-INF/container.xml', CONTAINER),
		stored('OEBPS/content.opf', opf({ manifest, spine })),
		bomb,
	]);
}

test('bad input: a zip bomb is stopped while it unpacks, with a one-line error', async () => {
	// 1 GB of text in a 1 MB file: before, reading it took gigabytes and then failed as an internal error.
	const one = bombEpub(bombXhtml(1024), 1);
	assert.ok(one.length < 1.5 * 1024 * 1024, `${one.length} bytes on disk`);
	await assertBadInput(
		await fixture('bomb.epub', one),
		/"OEBPS\/bomb\.xhtml" unpacks to more than 32 MB.*zip bomb/,
	);

	// A file under the limit that the spine lists over and over adds up.
	await assertBadInput(
		await fixture('bomb-repeated.epub', bombEpub(bombXhtml(30), 6)),
		/text files unpack to more than 64 MB in all/,
	);

	// The same archive with the file listed once is a book (of one word).
	const book = await readBook(await fixture('bomb-once.epub', bombEpub(bombXhtml(30), 1)));
	assert.equal(book.text, 'Bomb');
});
