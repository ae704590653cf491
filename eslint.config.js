// Lint rules: the recommended sets of ESLint, typescript-eslint and React's hooks (which include
// the React compiler's checks, e.g. no ref read or written during render). Formatting is prettier's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
	{ ignores: ['dist/', 'sessions/', 'node_modules/', 'bench/peers/', 'test/fixtures/'] },
	js.configs.recommended,
	...tseslint.configs.recommended,
	reactHooks.configs.flat['recommended-latest'],
	{
		languageOptions: {
			globals: globals.node,
		},
		rules: {
			// `_name` marks a parameter kept for its position in a signature.
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
	{
		// No line of source/ over 160 columns (a tab counts two, as prettier lays it out): prettier
		// keeps code short but never breaks a string, so a long message is cut into named parts, or
		// concatenated, by hand.
		files: ['source/**/*.ts', 'source/**/*.tsx'],
		rules: {
			'max-len': ['error', { code: 160, tabWidth: 2 }],
		},
	},
	{
		// A promise nobody awaits rejects unheard (or never settles, and the process ends with code
		// 13 and no message): each is awaited, or marked `void` where its failure is handled. Typed
		// linting, so only for the TypeScript files tsconfig.json covers.
		files: ['**/*.ts', '**/*.tsx'],
		ignores: ['bench/peers/**'],
		languageOptions: {
			parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
		},
		rules: {
			// node:test's test() returns a promise its runner awaits.
			'@typescript-eslint/no-floating-promises': [
				'error',
				{
					allowForKnownSafeCalls: [
						{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
					],
				},
			],
		},
	},
);
