import { DEFAULTS } from '../config.ts';
import type { Method, ProviderName } from '../domain.ts';
import { UserError } from '../errors.ts';
import { defaultModel, defaultProvider } from '../llm/create.ts';
import { deleteSession } from '../store/remove.ts';
import { listSessions, type SessionListing } from './list-sessions.ts';
import { openSession, type OpenEvents, type OpenResult } from './open-session.ts';
import type { AppServices } from './services.ts';
import { checkNewRun, type CheckedRun, type StartedRun } from './run.ts';
import type { Said } from '../program.ts';

/**
 * The home screen's use cases over one sessions folder: the list and deleting from it, the new-run
 * form's defaults, its check, and the run it starts; a saved session opened goes through
 * `openSession` as `booook resume` does.
 */

/** A new run as the form states it. */
export interface NewRunForm {
	book: string;
	method: Method;
	provider: ProviderName;
	model: string;
	/** A server other than the one the environment names (null: $*_BASE_URL, else the vendor's API), as `--base-url` is. */
	baseUrl: string | null;
	chunkSize: number;
}

/** What the form shows before anything is typed. */
export interface NewRunDefaults {
	method: Method;
	provider: ProviderName;
	/** The default model of each provider. */
	models: Record<ProviderName, string>;
	/** $OPENAI_BASE_URL, $ANTHROPIC_BASE_URL; '' for the vendor's API. */
	baseUrls: Record<ProviderName, string>;
	chunkSize: number;
}

export interface SessionsHome {
	load(): Promise<SessionListing>;
	remove(id: string): Promise<void>;
	defaults: NewRunDefaults;
	/** Why the form cannot start a run (a missing book, a key not set, a bad size), or null. */
	check(form: NewRunForm): Promise<Said | null>;
	/** The session of a form `check` passed, with its run; the caller closes it. */
	start(form: NewRunForm): Promise<StartedRun>;
	open(id: string, events: OpenEvents): Promise<OpenResult>;
}

/** The home screen's use cases over the services' sessions folder, with their environment, prices and limits. */
export function sessionsHome(services: AppServices): SessionsHome {
	const { sessionsDir: dir, env, opening: opts } = services;
	// The form's book is read and checked once; the run then starts from what the check prepared.
	let checked: { form: NewRunForm; run: CheckedRun } | null = null;
	return {
		load: () => listSessions(dir),
		remove: (id) => deleteSession(dir, id),
		defaults: {
			method: DEFAULTS.method,
			provider: defaultProvider(env),
			models: {
				openai: defaultModel('openai'),
				anthropic: defaultModel('anthropic'),
				extractive: defaultModel('extractive'),
			},
			baseUrls: {
				openai: env.OPENAI_BASE_URL?.trim() ?? '',
				anthropic: env.ANTHROPIC_BASE_URL?.trim() ?? '',
				extractive: '',
			},
			chunkSize: DEFAULTS.chunkSize,
		},
		check: async (form) => {
			try {
				const run = await checkNewRun(
					form.book,
					{
						method: form.method,
						provider: form.provider,
						model: form.model,
						baseUrl: form.baseUrl,
						chunkSize: form.chunkSize,
					},
					opts,
				);
				checked = { form, run };
				return null;
			} catch (error) {
				if (error instanceof UserError) return error.said;
				throw error;
			}
		},
		start: async (form) => {
			if (checked?.form !== form) throw new Error('internal: the new run was not checked');
			return await checked.run.start(dir);
		},
		open: (id, events) => openSession(dir, id, opts, events),
	};
}
