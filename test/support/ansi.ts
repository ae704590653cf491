/**
 * Terminal control characters and escape sequences: what hostile text is built from, and how Ink
 * writes colours and styles (SGR sequences) when colour is on.
 */

/** The characters hostile text is made of: escape, bell (ends an OSC sequence), right-to-left override. */
export const ESC = '\u001B';
export const BEL = '\u0007';
export const RLO = '\u202E';

// eslint-disable-next-line no-control-regex -- the escape character starts the sequence matched
export const SGR = /\x1b\[[0-9;]*m/gu;

/** A colour, foreground or background, in an SGR sequence (bold and inverse are not colours). */
// eslint-disable-next-line no-control-regex -- the escape character starts the sequence matched
export const COLOR = /\x1b\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9;]*)?m/u;

/** A frame as it reads without its colours and styles. */
export const unstyled = (frame: string) => frame.replace(SGR, '');
