/**
 * The files the tests and benchmarks read, in the repository itself so that a clone needs nothing
 * beside it: the three public-domain books of the README's examples and the BooookScore authors'
 * released data. Both folders end in a slash, as some tests append a relative name to them.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** examples/books/: Frankenstein, Pride and Prejudice, War and Peace (see its README). */
export const BOOKS_DIR = fileURLToPath(new URL('../../examples/books/', import.meta.url));

/** data/booookscore/: the authors' summaries, annotations and prompts (MIT; see its README). */
export const DATA_DIR = fileURLToPath(new URL('../../data/booookscore/', import.meta.url));

export const FRANKENSTEIN = join(BOOKS_DIR, 'frankenstein.txt');
export const PRIDE_AND_PREJUDICE = join(BOOKS_DIR, 'pride-and-prejudice.txt');
export const WAR_AND_PEACE = join(BOOKS_DIR, 'war-and-peace.txt');

/** The authors' released validation study (GPT-4, chunks of 4096, incremental): 1437 annotations with their verdicts. */
export const VALIDATION_STUDY = join(DATA_DIR, 'human_annotations/annotations-gpt4-4096-inc.json');
