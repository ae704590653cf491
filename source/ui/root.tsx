import type { ReactNode } from 'react';
import { KeysProvider } from './keys/KeysProvider.tsx';
import { ThemeContext, themeFor, type Theme } from './theme.ts';

/** What every screen stands in: the colour theme and the one reader of the keyboard. */
export function Root({ theme = themeFor(), children }: { theme?: Theme; children: ReactNode }) {
	return (
		<ThemeContext.Provider value={theme}>
			<KeysProvider>{children}</KeysProvider>
		</ThemeContext.Provider>
	);
}
