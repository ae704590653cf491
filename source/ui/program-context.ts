import { createContext, useContext } from 'react';

/**
 * How booook was started (`booook`, `npm --prefix ROOT start --`, …), for the command lines a screen
 * shows: given to `Root` by whoever renders the app, which learnt it from the command line.
 */
export const ProgramContext = createContext<string | null>(null);

export function useProgram(): string {
	const program = useContext(ProgramContext);
	if (program === null) throw new Error('useProgram: no Root above (screens render inside Root)');
	return program;
}
