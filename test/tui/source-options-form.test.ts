import test from 'ava';
import { DEFAULT_SOURCE_OPTIONS, MiB } from '../../src/scan/rules.js';
import { type Form, setValue } from '../../src/tui/forms.js';
import { optionFields, readOptions, readSyncMode, syncField } from '../../src/tui/source-options-form.js';

const formOf = (folder: boolean): Form => ({
  focus: 'sync',
  fields: [syncField('manual'), ...optionFields(DEFAULT_SOURCE_OPTIONS, folder, 'advanced')],
});

test('a folder gets size, globs and .gitignore; a file only the size limit', (t) => {
  t.deepEqual(
    formOf(true).fields.map((f) => f.id),
    ['sync', 'maxMiB', 'include', 'exclude', 'gitignore'],
  );
  t.deepEqual(
    formOf(false).fields.map((f) => f.id),
    ['sync', 'maxMiB'],
  );
  t.true(optionFields(DEFAULT_SOURCE_OPTIONS, true, 'advanced').every((f) => f.section === 'advanced'));
  t.true(optionFields(DEFAULT_SOURCE_OPTIONS, true).every((f) => f.section === undefined));
});

test('reading the form back: options as edited, the size limit checked', (t) => {
  let form = formOf(true);
  form = setValue(form, 'maxMiB', '3');
  form = setValue(form, 'include', ' *.md , docs/** ,');
  form = setValue(form, 'gitignore', false);
  form = setValue(form, 'sync', 'automatic');
  t.deepEqual(readOptions(form), {
    options: { maxFileBytes: 3 * MiB, include: ['*.md', 'docs/**'], exclude: [], gitignore: false },
  });
  t.is(readSyncMode(form), 'automatic');
  for (const bad of ['0', '1025', '1.5', 'ten', '']) {
    t.deepEqual(readOptions(setValue(form, 'maxMiB', bad)), {
      error: 'Size limit: a whole number of MiB from 1 to 1024',
    });
  }
  t.deepEqual(readOptions(setValue(formOf(false), 'maxMiB', '7')), { options: { maxFileBytes: 7 * MiB } });
});
