import type { Instance } from 'ink';
import type { ReactNode } from 'react';
import { KeysProvider } from './keys/KeysProvider.tsx';
import { Printer } from './print.tsx';
import { ThemeContext, themeFor, type Theme } from './theme.ts';

/** What every screen stands in: the colour theme, the one reader of the keyboard and the one `<Static>`. */
export function Root({ theme = themeFor(), children }: { theme?: Theme; children: ReactNode }) {
	return (
		<ThemeContext.Provider value={theme}>
			<KeysProvider>
				<Printer>{children}</Printer>
			</KeysProvider>
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
