import JSZip from 'jszip';
import { DomUtils, parseDocument } from 'htmlparser2';
import { badInput, type UserError } from '../errors.ts';
import { htmlToParagraphs } from './html.ts';
import { MAX_BOOK_BYTES, megabytes, tooBig } from './limits.ts';

// domhandler's node types, named through htmlparser2 (domhandler is not a direct dependency).
type AnyNode = ReturnType<typeof parseDocument>['children'][number];
type Element = ReturnType<typeof DomUtils.findAll>[number];

/**
 * EPUB -> text of its spine documents in reading order, and the OPF title. No I/O beyond the bytes
 * it is given. `label` is the name used in error messages.
 */

export interface EpubContent {
	text: string;
	/** The OPF's dc:title, or null when it has none. */
	title: string | null;
}

const PARAGRAPH_BREAK = '\n\n';
/**
 * Most bytes one file of the archive may unpack to, and all the files read from it together (a
 * spine may list one file many times). They are set by what the steps after reading can hold: the
 * markup of a book of MAX_BOOK_BYTES of text, with room for its tags. A zip bomb is stopped while
 * it unpacks rather than after it has filled the memory, and four files of 31 MB (which passed
 * caps of 32 and 128 MB, and took 74 s and 3.1 GB to plan) are refused by the third.
 */
export const MAX_ENTRY_BYTES = MAX_BOOK_BYTES;
export const MAX_UNPACKED_BYTES = 2 * MAX_BOOK_BYTES;
// Font obfuscation is not DRM: the text of such books is readable.
const FONT_OBFUSCATION = new Set(['http://www.idpf.org/2008/embedding', 'http://ns.adobe.com/pdf/enc#RC']);

export async function readEpub(bytes: Uint8Array, label: string): Promise<EpubContent> {
	const broken = (problem: string): UserError =>
		badInput(
			`${label}: ${problem}; the EPUB looks broken, re-export it or convert the book to a UTF-8 .txt file`,
		);

	let zip: JSZip;
	try {
		zip = await JSZip.loadAsync(bytes);
	} catch {
		throw broken('not a valid EPUB (not a zip archive)');
	}
	const entry = (path: string) => findEntry(zip, path);
	let left = MAX_UNPACKED_BYTES;
	const read = async (file: JSZip.JSZipObject): Promise<Uint8Array> => {
		const limit = Math.min(MAX_ENTRY_BYTES, left);
		let bytes: Uint8Array | null;
		try {
			bytes = await unpack(file, limit);
		} catch (error) {
			throw broken(
				`"${file.name}" cannot be unpacked (${error instanceof Error ? error.message : String(error)})`,
			);
		}
		if (bytes === null) {
			const why =
				limit === MAX_ENTRY_BYTES
					? `"${file.name}" unpacks to more than ${megabytes(MAX_ENTRY_BYTES)}`
					: `its text files unpack to more than ${megabytes(MAX_UNPACKED_BYTES)} in all`;
			throw badInput(
				`${label}: ${why}, more than any book needs (a zip bomb?): booook unpacks at most ${megabytes(MAX_ENTRY_BYTES)} ` +
					`per file and ${megabytes(MAX_UNPACKED_BYTES)} in all, ` +
					`the markup of a book of ${megabytes(MAX_BOOK_BYTES)} of text; convert the book to a UTF-8 .txt file of at most ${megabytes(MAX_BOOK_BYTES)}`,
			);
		}
		left -= bytes.length;
		return bytes;
	};
	const readXml = async (file: JSZip.JSZipObject) =>
		parseXml(decodeMarkup(await read(file), file.name, broken));

	const container = entry('META-INF/container.xml');
	if (!container) throw broken('no META-INF/container.xml in the archive');
	const rootfiles = elements(await readXml(container), 'rootfile');
	const rootfile =
		rootfiles.find((el) => el.attribs['media-type'] === 'application/oebps-package+xml') ?? rootfiles[0];
	const opfPath = rootfile?.attribs['full-path'];
	if (!opfPath) throw broken('META-INF/container.xml names no package (OPF) file');
	const opfFile = entry(opfPath) ?? entry(decodePath(opfPath));
	if (!opfFile) throw broken(`the package file "${opfPath}" named in META-INF/container.xml is missing`);
	const opf = await readXml(opfFile);

	const manifest = new Map<string, { href: string; type: string }>();
	for (const item of elements(opf, 'item')) {
		const { id, href } = item.attribs;
		if (id && href) manifest.set(id, { href, type: item.attribs['media-type'] ?? '' });
	}
	// Items marked linear="no" are auxiliary (covers, pop-up notes) and not part of the reading order.
	const itemrefs = elements(opf, 'itemref').filter((ref) => ref.attribs.linear !== 'no');
	if (itemrefs.length === 0) throw broken(`the spine in "${opfFile.name}" lists no documents`);

	const encrypted = await encryptedPaths(zip, readXml);
	const paragraphs: string[] = [];
	// UTF-8 bytes of the text so far, with the breaks between paragraphs.
	let textBytes = 0;
	for (const ref of itemrefs) {
		const idref = ref.attribs.idref ?? '';
		const item = manifest.get(idref);
		if (!item) throw broken(`spine item "${idref}" is not in the manifest of "${opfFile.name}"`);
		// Images and other non-markup items in the spine carry no text to read.
		if (item.type !== '' && !/html|xml/i.test(item.type)) continue;
		const path = resolveHref(opfFile.name, item.href);
		const file = entry(path);
		if (!file) throw broken(`spine item "${item.href}" (${path}) is missing from the archive`);
		if (encrypted.has(file.name)) {
			throw badInput(
				`${label}: the book is DRM-protected (its text is encrypted); remove the protection or give a .txt file`,
			);
		}
		for (const paragraph of htmlToParagraphs(decodeMarkup(await read(file), file.name, broken))) {
			textBytes +=
				Buffer.byteLength(paragraph, 'utf8') + (paragraphs.length > 0 ? PARAGRAPH_BREAK.length : 0);
			paragraphs.push(paragraph);
		}
		if (textBytes > MAX_BOOK_BYTES) throw tooBig(label, `its text is more than ${megabytes(MAX_BOOK_BYTES)}`);
	}
	if (paragraphs.length === 0)
		throw badInput(
			`${label}: the EPUB has no text (only images or empty pages?); give a book with text in it`,
		);

	const title = elements(opf, 'title')
		.map((el) => DomUtils.textContent(el).replace(/\s+/g, ' ').trim())
		.find((text) => text !== '');
	return { text: paragraphs.join(PARAGRAPH_BREAK), title: title ?? null };
}

/**
 * The unpacked bytes of `file`, or null once they pass `limit` bytes: it is unpacked as a stream
 * and stopped there, whatever sizes the archive declares.
 */
function unpack(file: JSZip.JSZipObject, limit: number): Promise<Uint8Array | null> {
	return new Promise((resolve, reject) => {
		const stream = file.nodeStream('nodebuffer');
		const chunks: Buffer[] = [];
		let size = 0;
		stream.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) {
				// Paused, the stream stops the unpacking once its small buffer is full.
				stream.pause();
				stream.removeAllListeners('data');
				chunks.length = 0;
				resolve(null);
				return;
			}
			chunks.push(chunk);
		});
		stream.on('error', reject);
		stream.on('end', () => resolve(Buffer.concat(chunks, size)));
	});
}

/** Zip paths are case-sensitive, but books made on case-insensitive file systems are not always. */
function findEntry(zip: JSZip, path: string): JSZip.JSZipObject | null {
	const exact = zip.file(path);
	if (exact && !exact.dir) return exact;
	const lower = path.toLowerCase();
	return zip.file(new RegExp('')).find((file) => file.name.toLowerCase() === lower) ?? null;
}

/** The zip path of `href` (a URL relative to the OPF): fragment dropped, dot segments resolved, URL-decoded. */
export function resolveHref(opfPath: string, href: string): string {
	const base = 'http://epub/' + opfPath.split('/').map(encodeURIComponent).join('/');
	return decodePath(new URL(href, base).pathname.slice(1));
}

function decodePath(path: string): string {
	try {
		return decodeURIComponent(path);
	} catch {
		return path;
	}
}

/** Paths of entries that META-INF/encryption.xml says are encrypted with something other than font obfuscation. */
async function encryptedPaths(
	zip: JSZip,
	readXml: (file: JSZip.JSZipObject) => Promise<AnyNode[]>,
): Promise<Set<string>> {
	const file = findEntry(zip, 'META-INF/encryption.xml');
	const paths = new Set<string>();
	if (!file) return paths;
	for (const data of elements(await readXml(file), 'encrypteddata')) {
		const method = elements([data], 'encryptionmethod')[0]?.attribs.algorithm ?? '';
		if (FONT_OBFUSCATION.has(method)) continue;
		for (const ref of elements([data], 'cipherreference')) {
			// URIs here are relative to the archive root, not to META-INF.
			if (ref.attribs.uri) paths.add(decodePath(ref.attribs.uri.replace(/^\/+/, '')));
		}
	}
	return paths;
}

function parseXml(xml: string): AnyNode[] {
	return parseDocument(xml, { xmlMode: true }).children;
}

/** Elements by local name, ignoring namespace prefixes (`opf:item`, `dc:title`) and case. */
function elements(nodes: AnyNode[], name: string): Element[] {
	return DomUtils.findAll((el) => el.name.replace(/^.*:/, '').toLowerCase() === name, nodes);
}

/**
 * Text of a markup file in the archive. EPUB requires UTF-8 or UTF-16, but older books declare
 * other encodings in their XML declaration or meta tag, so those are honoured too.
 */
function decodeMarkup(bytes: Uint8Array, name: string, broken: (problem: string) => UserError): string {
	let encoding = 'utf-8';
	if (bytes[0] === 0xff && bytes[1] === 0xfe) encoding = 'utf-16le';
	else if (bytes[0] === 0xfe && bytes[1] === 0xff) encoding = 'utf-16be';
	else if (!(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)) {
		const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
		const declared =
			/^\s*<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/.exec(head) ??
			/<meta[^>]*charset\s*=\s*["']?([\w.:-]+)/i.exec(head);
		if (declared?.[1]) encoding = declared[1];
	}
	let decoder: TextDecoder;
	try {
		decoder = new TextDecoder(encoding, { fatal: true });
	} catch {
		decoder = new TextDecoder('utf-8', { fatal: true });
	}
	try {
		return decoder.decode(bytes);
	} catch {
		throw broken(`"${name}" is not valid ${decoder.encoding} text`);
	}
}
