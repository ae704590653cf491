import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refusal } from '../../source/format/open-refusal.ts';
import { runFailed } from '../../source/format/run-end.ts';
import { comparisonWalked, validationWalked } from '../../source/format/walk-end.ts';
import { next, say } from '../../source/program.ts';

const PROGRAM = 'npm start --';

test('a failed run whose server was not reached names the address to put after --base-url, shell-quoted, in the command said as booook was started', () => {
	const failed = runFailed({
		error: 'connect ECONNREFUSED',
		unreached: 'http://localhost:8000/v1',
		baseUrl: "http://host/it's",
		continueWith: next('resume', 's1'),
	});
	assert.equal(
		say(failed, PROGRAM),
		'run failed: connect ECONNREFUSED\nThe server at http://localhost:8000/v1 could not be reached: start it ' +
			`(or put its new address after --base-url), then continue with: npm start -- resume s1 --base-url 'http://host/it'\\''s'\n`,
	);
});

test('a refusal for batches still out names the flag after resume, and the whole command on the home screen; more than three batches are counted', () => {
	const reason = { kind: 'batches' as const, id: 's1', requests: 5, batches: ['b1', 'b2', 'b3', 'b4', 'b5'] };
	assert.match(
		say(refusal(reason, '', 'resume'), PROGRAM),
		/batches b1, b2, b3 and 2 more; .* or add --abandon-batches to/u,
	);
	assert.match(
		say(refusal(reason, ' --sessions-dir x', 'home'), PROGRAM),
		/or continue it with npm start -- resume s1 --sessions-dir x --abandon-batches to make them again/u,
	);
});

test('a walk left half way says the command that continues it; one finished, the command of its results', () => {
	const asked = { id: 's1', validator: 'ann lee', mode: 'faithfulness', seed: 7, fraction: 0.5 };
	assert.equal(
		say(
			validationWalked(asked, { judged: 3, total: 9, unitKind: 'claims', partial: true }, true, ''),
			PROGRAM,
		),
		"ann lee: 3/9 claims of your sample judged, all saved. Continue with: npm start -- validate s1 --mode faithfulness --fraction 0.5 --seed 7 --validator 'ann lee'",
	);
	assert.equal(
		say(validationWalked({ ...asked, mode: 'blind' }, { judged: 9, total: 9 }, false, ''), PROGRAM),
		'ann lee: 9/9 judged, all saved. See the results with: npm start -- report s1',
	);
	assert.equal(
		say(comparisonWalked('ann', { name: 'c1', judged: 1, total: 4 }, 'RESULTS', ''), PROGRAM),
		'ann: 1/4 pairs judged, all saved. Continue with: npm start -- compare --name c1 --annotator ann',
	);
});
