import { useApp, type Instance } from 'ink';
import { useEffect, useState, type ReactNode } from 'react';
import { KeysProvider } from './keys/KeysProvider.tsx';
import { Printer } from './print.tsx';
import { ProgramContext } from './program-context.ts';
import { ThemeContext, themeFor, type Theme } from './theme.ts';

/**
 * What every screen stands in: the colour theme, the one reader of the keyboard, the one `<Static>`,
 * and how booook was started (`program`), for the command lines the screens show.
 */
export function Root({
	theme = themeFor(),
	program,
	children,
}: {
	theme?: Theme;
	program: string;
	children?: ReactNode;
}) {
	return (
		<ThemeContext.Provider value={theme}>
			<ProgramContext.Provider value={program}>
				<KeysProvider>
					<Printer>{children}</Printer>
				</KeysProvider>
			</ProgramContext.Provider>
		</ThemeContext.Provider>
	);
}

/**
 * Waits for a rendered app to end. Ink's own Ctrl-C exit is off (a quit must save first), so
 * Ctrl-C and SIGTERM go to `onSignal` meanwhile, which ends the app its own way.
 */
export async function untilExit(
	instance: Pick<Instance, 'waitUntilExit'>,
	onSignal: () => void,
): Promise<void> {
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	try {
		await instance.waitUntilExit();
	} finally {
		process.off('SIGINT', onSignal);
		process.off('SIGTERM', onSignal);
	}
}

/**
 * Leaving a screen for another drawn where it was (the home screen and the screens it opens): Ink
 * leaves an app's last frame on the terminal, and once the app has ended its `clear()` erases
 * nothing (the end forgets the frame's height). `leave()` has the app draw an empty frame, which
 * erases the one before it, and then end; while `left`, the app draws nothing. The empty frame is
 * one blank row, which `backOverEmptyFrame` goes back over so the next screen starts where this one did.
 */
export function useLeave(): { left: boolean; leave: () => void } {
	const { exit } = useApp();
	const [left, setLeft] = useState(false);
	useEffect(() => {
		if (left) exit();
	}, [left, exit]);
	return { left, leave: () => setLeft(true) };
}

/** After an app ended by `leave()`: the cursor up onto the blank row its empty frame left. */
export function backOverEmptyFrame(stdout: NodeJS.WriteStream = process.stdout): void {
	if (stdout.isTTY) stdout.write('\u001B[1A');
}
