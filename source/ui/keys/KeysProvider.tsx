import { useInput, type Key } from 'ink';
import { createContext, useContext, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { KeyPress } from './binding.ts';
import { pressesOf } from './presses.ts';

/**
 * The one reader of the keyboard. Ink's input is read here only, each event is cut into single
 * presses (see presses.ts), and each press goes to the handlers, the one mounted last first, until
 * one takes it. A handler is registered once, when its component mounts, and reads
 * its newest closure through a ref: no key can fall between an old handler going off and a new
 * one coming on, which is how keys were lost when each overlay attached its own `useInput`.
 */

/** Returns false to pass the press on to the next handler; anything else takes it. */
export type KeyHandler = (press: KeyPress) => boolean | void;

interface Registered {
	active: boolean;
	handler: { current: KeyHandler };
	order: number;
}

interface Registry {
	add(entry: Registered): () => void;
	/** An entry's `active` changed: the keyboard is read while any entry is active. */
	changed(): void;
}

const KeysContext = createContext<Registry | null>(null);

export function KeysProvider({ children }: { children: ReactNode }) {
	const entries = useRef<Registered[]>([]);
	// Read from the first frame on: a handler registers as its screen commits, and Ink starts
	// listening in an effect after that first frame; a screen with no handler yet drops nothing it needed.
	const [reading, setReading] = useState(true);
	const registry = useMemo<Registry>(() => {
		const update = () => setReading(entries.current.some((e) => e.active));
		return {
			add(entry) {
				entries.current = [...entries.current, entry].sort((a, b) => b.order - a.order);
				update();
				return () => {
					entries.current = entries.current.filter((e) => e !== entry);
					update();
				};
			},
			changed: update,
		};
	}, []);

	useInput(
		(input: string, key: Key) => {
			for (const press of pressesOf(input, key)) {
				// The list is read per press: a press may mount or unmount a handler for the next.
				for (const entry of entries.current) {
					if (!entry.active) continue;
					if (entry.handler.current(press) !== false) break;
				}
			}
		},
		{ isActive: reading },
	);

	return <KeysContext.Provider value={registry}>{children}</KeysContext.Provider>;
}

let registrations = 0;

/**
 * Hears key presses while `active` (default true). The handler mounted last hears first, so an
 * overlay mounted over its screen hears its keys before the screen does.
 */
export function useKeys(handler: KeyHandler, { active = true }: { active?: boolean } = {}): void {
	const registry = useContext(KeysContext);
	if (!registry) throw new Error('useKeys needs a KeysProvider above it');
	const ref = useRef(handler);
	// Layout effects run as the component commits, before Ink hands over the next input event: the
	// handler a press reaches is the one of the frame on screen.
	useLayoutEffect(() => {
		ref.current = handler;
	});
	const entry = useRef<Registered | null>(null);
	useLayoutEffect(() => {
		const mine: Registered = { active: false, handler: ref, order: registrations++ };
		entry.current = mine;
		const remove = registry.add(mine);
		return () => {
			entry.current = null;
			remove();
		};
	}, [registry]);
	// Run after each registration (effects run in order) and whenever `active` changes.
	useLayoutEffect(() => {
		if (!entry.current || entry.current.active === active) return;
		entry.current.active = active;
		registry.changed();
	}, [registry, active]);
}
