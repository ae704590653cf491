import { Static } from 'ink';
import { createContext, Fragment, useCallback, useContext, useState, type ReactNode } from 'react';

/** Prints `node` once, above the live area, where it stays as the terminal scrolls. */
export type Print = (node: ReactNode) => void;

const PrintContext = createContext<Print | null>(null);

/**
 * The app's one `<Static>`, mounted with the Ink instance and never unmounted: screens print through
 * it (`usePrint`) and never mount their own. Ink 6.8 keeps drawing the last `<Static>` it saw after
 * it is unmounted, sizing it from its freed layout node, whose memory the next nodes reuse: a size
 * that can be anything, and a height in the millions filled the heap (ink issue 904).
 *
 * `<Static>` tells new items by the length of its list, so what was printed stays in it: print
 * text, not elements that hold a run or a book.
 */
export function Printer({ children }: { children: ReactNode }) {
	const [printed, setPrinted] = useState<ReactNode[]>([]);
	const print = useCallback<Print>((node) => setPrinted((all) => [...all, node]), []);
	return (
		<PrintContext.Provider value={print}>
			<Static items={printed}>{(node, i) => <Fragment key={i}>{node}</Fragment>}</Static>
			{children}
		</PrintContext.Provider>
	);
}

/** Prints through the app's one `<Static>` (see `Printer`). */
export function usePrint(): Print {
	const print = useContext(PrintContext);
	if (!print) throw new Error('usePrint: no Printer above (screens render inside Root)');
	return print;
}
