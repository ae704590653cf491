import type { MemoryScene } from '../domain.ts';
import { distortionOwner, sceneOwner } from '../memory/prompt.ts';
import { nextNumber, readDistortion, readScene } from '../memory/scenes.ts';
import { WORD_RATIO } from '../summarize/budget.ts';
import { fill, type Templates } from '../summarize/templates.ts';
import type { Span } from '../text/sentences.ts';
import type { CallLogStore } from './call-runner.ts';
import { ReadPass, type PassOptions, type ReadPassResult } from './read-pass.ts';

/** What the writer needs of a session: its scenes, and durable writes (the call log among them). */
export interface SceneWriterStore extends CallLogStore {
	readonly data: { readonly memoryScenes?: readonly MemoryScene[] };
	/** Adds scenes; resolves once they are durable. */
	append(list: 'memoryScenes', ...items: MemoryScene[]): Promise<void>;
}

export interface SceneWriterOptions extends PassOptions {
	store: SceneWriterStore;
	templates: Pick<Templates, 'memory-scene'>;
	book: { title: string; text: string };
	/** The stretches of the book to write a scene of (see `scenePieces`), as character ranges. */
	pieces: readonly Span[];
	/** The word limit of each scene summary (see `sceneWords`). */
	words: number;
	/** Pieces written so far (those written before included) out of all given; called at the start and after each scene. */
	onProgress?: (written: number, total: number) => void;
}

export interface SceneWriterResult extends ReadPassResult {
	/** Scenes stored by this pass. */
	written: number;
	/** Pieces left without a scene: no answer could be read after every retry. */
	unreadable: number;
}

/**
 * A model writes a scene summary (source `written`) of each stretch of the book, NarrativeXL's
 * way, through the shared call runner (logged in calls.jsonl, billed, concurrent, paced). Each
 * scene is stored as it comes, its id `s<n>` after the highest stored. Stretches with a scene of
 * this book already (same start and end) are skipped, and calls a killed pass logged are taken
 * from the log rather than asked again. A stretch whose answer is empty after every retry is left
 * without a scene.
 */
export async function writeScenes(opts: SceneWriterOptions): Promise<SceneWriterResult> {
	const { book, words } = opts;
	const has = new Set(
		(opts.store.data.memoryScenes ?? [])
			.filter((s) => s.book === book.title && s.source !== 'distorted')
			.map((s) => `${s.start}:${s.end}`),
	);
	return writeEach(opts, opts.pieces, (p) => !has.has(`${p.start}:${p.end}`), {
		ask: (pass, piece) => {
			const stretch = book.text.slice(piece.start, piece.end);
			return pass.ask({
				owner: sceneOwner(book.title, piece),
				name: `the scene of characters ${piece.start} to ${piece.end}`,
				template: 'memory-scene',
				prompt: fill(opts.templates['memory-scene'], { text: stretch, words }),
				task: { kind: 'summarize', texts: [stretch], words },
				// Room for the limit in words at the summaries' words per token, twice over: a model
				// overshoots a limit in words, and a scene cut short is refused.
				maxTokens: Math.ceil((2 * words) / WORD_RATIO),
				read: readScene,
			});
		},
		scene: (piece, text) => ({
			book: book.title,
			source: 'written',
			start: piece.start,
			end: piece.end,
			text,
		}),
	});
}

/**
 * Asks for each item still `wanted` through one read pass, storing each answer as a scene as it
 * comes (its id `s<n>` after the highest stored) and counting the unreadable; progress counts the
 * items done before as written.
 */
async function writeEach<T>(
	opts: PassOptions & Pick<SceneWriterOptions, 'store' | 'onProgress'>,
	items: readonly T[],
	wanted: (item: T) => boolean,
	how: {
		ask: (pass: ReadPass, item: T) => Promise<string | null | undefined>;
		scene: (item: T, text: string) => Omit<MemoryScene, 'id'>;
	},
): Promise<SceneWriterResult> {
	const { store } = opts;
	const pass = await ReadPass.start({ ...opts, log: store });
	const todo = items.filter(wanted);
	let next = nextNumber((store.data.memoryScenes ?? []).map((s) => s.id));
	const result = { written: 0, unreadable: 0 };
	const total = items.length;
	opts.onProgress?.(total - todo.length, total);
	await pass.each(todo, async (item) => {
		const text = await how.ask(pass, item);
		if (text === undefined || pass.stopped) return;
		if (text === null) {
			result.unreadable += 1;
			return;
		}
		await store.append('memoryScenes', { id: `s${next++}`, ...how.scene(item, text) });
		result.written += 1;
		opts.onProgress?.(total - todo.length + result.written, total);
	});
	const { status, error, totals } = pass.result();
	return { status, ...result, error, totals };
}

export interface DistortionWriterOptions extends PassOptions {
	store: SceneWriterStore;
	templates: Pick<Templates, 'memory-distortion'>;
	/** The true scenes to write a distortion of. */
	scenes: readonly MemoryScene[];
	/** Distortions written so far (those written before included) out of all asked; called at the start and after each. */
	onProgress?: (written: number, total: number) => void;
}

/** Words of a scene, as the distortion prompt asks it to keep its length. */
const wordsOf = (text: string) => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

/**
 * A model writes a distortion of each true scene (NarrativeXL's third kind of wrong option,
 * appendix A.9.2): the scene with one fact changed, the rest and the length kept. Through the
 * shared call runner, as `writeScenes`: logged, billed, paced, resumable; each stored as it comes
 * (source `distorted`, `of` its scene, on that scene's stretch). A scene with a distortion already
 * is skipped; one whose answer is empty or the scene unchanged after every retry is left without.
 */
export async function writeDistortions(opts: DistortionWriterOptions): Promise<SceneWriterResult> {
	const stored = opts.store.data.memoryScenes ?? [];
	const done = new Set(stored.filter((s) => s.source === 'distorted').map((s) => s.of));
	return writeEach(opts, opts.scenes, (s) => !done.has(s.id), {
		ask: (pass, scene) => {
			const words = wordsOf(scene.text);
			return pass.ask({
				owner: distortionOwner(scene),
				name: `the distortion of scene ${scene.id}`,
				template: 'memory-distortion',
				prompt: fill(opts.templates['memory-distortion'], { scene: scene.text, words }),
				task: { kind: 'summarize', texts: [scene.text], words },
				maxTokens: Math.ceil((2 * words) / WORD_RATIO),
				read: (answer) => readDistortion(answer, scene.text),
			});
		},
		scene: (scene, text) => ({
			book: scene.book,
			source: 'distorted',
			of: scene.id,
			start: scene.start,
			end: scene.end,
			text,
		}),
	});
}
