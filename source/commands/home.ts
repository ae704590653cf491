import { appServices } from '../app/services.ts';
import { leaveRun, preferReactProduction } from './execute.ts';
import { refusalLine } from './open-refusal.ts';
import { saidWalked, validationAsked } from './validate-screen.ts';

/**
 * `booook` with no arguments in a terminal: the app's services built once, and the navigator
 * (ui/navigator.tsx) given them and this command's words. Returns 0 when the user quits the list,
 * or the run's exit code when a signal (SIGINT, SIGTERM) ended its screen.
 */
export async function homeInteractive(opts: {
	sessionsDir: string;
	env?: NodeJS.ProcessEnv;
	stdin?: NodeJS.ReadStream;
	stdout?: NodeJS.WriteStream;
	stderr?: NodeJS.WriteStream;
	/** How booook was started: every command line the screens print starts so. */
	program: string;
}): Promise<number> {
	const { stdin, stdout, stderr } = opts;
	const services = appServices({
		sessionsDir: opts.sessionsDir,
		env: opts.env,
		streams: { stdin, stdout, stderr },
		program: opts.program,
	});
	const { program } = services;
	const dir = services.sessionsDir;
	preferReactProduction();
	const { navigate } = await import('../ui/navigator.tsx');
	return await navigate(services, {
		refusal: (reason) => refusalLine(reason, dir, 'home', program),
		signalled: (run) => leaveRun(run, stderr ?? process.stderr, program),
		validation: (id, walk) => {
			const asked = validationAsked(dir, id, { ...walk, program });
			return { asked, done: (walked) => saidWalked(dir, asked, walked, false) };
		},
		comparison: async (target) => {
			const { comparisonAsked, saidCompared } = await import('./compare-screen.ts');
			const asked = comparisonAsked(dir, target, undefined, program);
			return { asked, done: (walked) => saidCompared(dir, asked, walked) };
		},
	});
}
