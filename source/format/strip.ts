/**
 * A strip chart of coverage over the book's length, one character cell per bucket of consecutive
 * chunks: how many of the bucket's chunks are cited. `·` none, `░` up to a third, `▒` up to two
 * thirds, `▓` more, `█` all. With fewer chunks than cells, each chunk spans several cells.
 */
const SHADES = ['░', '▒', '▓'] as const;

export function stripChart(citations: readonly number[], width: number): string {
	if (!Number.isInteger(width) || width < 1)
		throw new Error(`a strip chart needs a width of at least 1, got ${width}`);
	const n = citations.length;
	if (n === 0) return '';
	let line = '';
	for (let cell = 0; cell < width; cell++) {
		const lo = Math.floor((cell * n) / width);
		const hi = Math.max(lo + 1, Math.floor(((cell + 1) * n) / width));
		let cited = 0;
		for (let i = lo; i < hi; i++) if (citations[i]! > 0) cited++;
		const share = cited / (hi - lo);
		line += share === 0 ? '·' : share === 1 ? '█' : SHADES[Math.min(2, Math.ceil(share * 3) - 1)]!;
	}
	return line;
}
