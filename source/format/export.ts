import { next, said, type Said } from '../program.ts';
import { counted } from './count.ts';

/** Why `export` wrote nothing, each with the flag or command that mends it. */

/** Why the session was not exported (app/export.ts `ExportRefusal`). */
export function exportRefusalLine(
	reason:
		| { kind: 'collection-intermediate' | 'no-verdicts'; id: string }
		| { kind: 'unknown-validator'; validator: string; validators: readonly string[] }
		| { kind: 'choose-validator'; id: string; validators: readonly string[] },
): Said {
	switch (reason.kind) {
		case 'collection-intermediate':
			return `session ${reason.id} is an imported collection; it has final summaries only, so leave out --intermediate`;
		case 'no-verdicts':
			return said`session ${reason.id} has no verdicts yet; judge its annotations with: ${next('validate', reason.id)}`;
		case 'unknown-validator':
			return `--validator ${reason.validator}: no verdicts by that name; the validators are: ${reason.validators.join(', ')}`;
		case 'choose-validator':
			return (
				`session ${reason.id} has verdicts by ${counted(reason.validators.length, 'validator')} ` +
				`(${reason.validators.join(', ')}); choose one with --validator NAME`
			);
	}
}

/** Why the file `--out` names was not written (app/export.ts `WriteRefusal`). */
export function outRefusalLine(
	out: string,
	refused:
		| { kind: 'exists' }
		| { kind: 'no-folder'; folder: string }
		| { kind: 'cannot-write'; code: string | null },
): string {
	switch (refused.kind) {
		case 'exists':
			return `${out} already exists; choose another --out or add --force to replace it`;
		case 'no-folder':
			return `${out}: the folder ${refused.folder} does not exist; create it or choose another --out`;
		case 'cannot-write':
			return `${out}: cannot write (${refused.code ?? 'error'}); choose another --out`;
	}
}
