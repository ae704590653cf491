import { COMPARE_KEYS } from './screens/compare/keys.ts';
import { FAITHFULNESS_KEYS } from './screens/faithfulness/keys.ts';
import { HOME_KEYS } from './screens/home/keys.ts';
import { RUN_KEYS } from './screens/run/keys.ts';
import { SCORE_KEYS } from './screens/score/keys.ts';
import { STUDY_KEYS } from './screens/study/keys.ts';
import { VALIDATE_KEYS } from './screens/validate/keys.ts';
import { keyMatches, type Action, type Binding, type KeyPress, type Place } from './keys/binding.ts';
import { SHARED_KEYS } from './keys/shared.ts';

/**
 * Every key of the app, put together from each screen's keys.ts and the shared ones: screens look
 * their actions up here, the footer shows the ones of the current screen or dialog, and `?` lists
 * them all. A key means one thing in a place.
 */

const ALL_KEYS = [
	SHARED_KEYS,
	HOME_KEYS,
	RUN_KEYS,
	STUDY_KEYS,
	SCORE_KEYS,
	VALIDATE_KEYS,
	FAITHFULNESS_KEYS,
	COMPARE_KEYS,
];

export const BINDINGS: readonly Binding[] = ALL_KEYS.flatMap((k) => k.bindings);

/** The action `key` means in `place`, if any. */
export function actionFor(place: Place, key: KeyPress): Action | null {
	for (const b of BINDINGS)
		if (b.on.includes(place) && b.keys.some((k) => keyMatches(k, key))) return b.action;
	return null;
}

/** The keys a place is for, which its footer shows first (see `Keys`). */
export const MAIN_KEYS: Partial<Record<Place, readonly Action[]>> = Object.assign(
	{},
	...ALL_KEYS.map((k) => k.main),
);

/** What the footer shows for a binding: its short name, else its description. */
export function shortName(b: Binding): string {
	return b.short ?? b.description;
}

/** The bindings of one place, in the order the footer shows them. */
export function bindingsFor(place: Place): Binding[] {
	return BINDINGS.filter((b) => b.on.includes(place));
}
