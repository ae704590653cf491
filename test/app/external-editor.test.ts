import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editorCommand, externalEditorFrom } from '../../source/app/external-editor.ts';

/** What npm adds to a script's environment (npm 11): its lifecycle event, and EDITOR from its `editor` setting. */
const npm = { npm_lifecycle_event: 'start', npm_command: 'start' };

test('the editor e opens: BOOOOK_EDITOR, else VISUAL, else EDITOR; none of them set: the in-app editor', () => {
	assert.equal(editorCommand({}), null);
	assert.equal(editorCommand({ EDITOR: '  ' }), null);
	assert.equal(editorCommand({ EDITOR: 'nano' }), 'nano');
	assert.equal(editorCommand({ EDITOR: 'nano', VISUAL: 'code --wait' }), 'code --wait');
	assert.equal(
		editorCommand({ EDITOR: 'nano', VISUAL: 'emacs', BOOOOK_EDITOR: 'vim -u NONE' }),
		'vim -u NONE',
	);
	assert.equal(
		editorCommand({ EDITOR: 'nano', VISUAL: 'emacs', BOOOOK_EDITOR: '' }),
		null,
		'set and empty: the in-app editor',
	);
});

test("under npm, the EDITOR=vi npm sets when the user set no editor is not the user's choice", () => {
	assert.equal(editorCommand({ ...npm, EDITOR: 'vi' }), null);
	assert.equal(editorCommand({ EDITOR: 'vi' }), 'vi', 'outside npm, vi was chosen by the user');
	assert.equal(editorCommand({ ...npm, EDITOR: 'nano' }), 'nano', "npm passes the user's own EDITOR on");
	assert.equal(
		editorCommand({ ...npm, EDITOR: 'emacs', VISUAL: 'emacs' }),
		'emacs',
		'npm copies VISUAL into EDITOR',
	);
	assert.equal(
		editorCommand({ ...npm, EDITOR: 'vi', BOOOOK_EDITOR: 'vi' }),
		'vi',
		'vi under npm is had through BOOOOK_EDITOR',
	);
	assert.equal(externalEditorFrom({ ...npm, EDITOR: 'vi' }), null);
	assert.equal(
		externalEditorFrom({ VISUAL: 'true', EDITOR: 'false' })?.command,
		'true',
		'the screen names the editor that runs',
	);
});
