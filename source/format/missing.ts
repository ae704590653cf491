/** What a figure that cannot be shown (nothing to divide, no price, no score yet) reads as. */
export const DASH = '—';
