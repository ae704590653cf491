/**
 * What a screen reads a use-case's state through (React's useSyncExternalStore): a version that
 * moves on every saved change, and the listeners told of it.
 */
export class Watched {
	#version = 0;
	readonly #listeners = new Set<() => void>();

	/** Changes on every saved change; screens use it as their snapshot. */
	readonly getVersion = (): number => this.#version;

	readonly subscribe = (listener: () => void): (() => void) => {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	};

	protected changed(): void {
		this.#version += 1;
		for (const listener of this.#listeners) listener();
	}
}
