import { mkdir, readdir, writeFile } from 'node:fs/promises';
import test from 'ava';
import { main } from '../../src/cli/main.js';
import { storeConfigPath, storeDir } from '../../src/storage/paths.js';
import { createStore, deleteStore, findStore, listStores } from '../../src/store/engine.js';
import { storeIdFor } from '../../src/store/store-config.js';
import { captureIO } from '../cli/capture.js';
import { homeWithStarter } from '../helpers/store-env.js';

// Store ids (directory names) are unique and stable for any name: a transliterated slug, plus a
// short hash of the whole name whenever the slug does not spell the name exactly.

const NAMES = [
  'notes',
  'Notes',
  'NOTES',
  'no tes',
  'no-tes',
  'no_tes',
  'notes!',
  'Заметки',
  'заметки',
  '日本語メモ',
  '中文笔记',
  '한국어 노트',
  'ملاحظات',
  'הערות',
  'Ελληνικά',
  'Łódź Straße',
  'Crème brûlée',
  'Café', // NFC
  'Notes 🚀',
  'Notes 🚀🚀',
  '🚀',
  '👍🏽',
  '',
  'a'.repeat(80),
  `${'a'.repeat(80)}b`,
];

test('ids are distinct for distinct names, stable, and safe as directory names', (t) => {
  const ids = NAMES.map((n) => storeIdFor(n));
  t.is(new Set(ids).size, NAMES.length, ids.join(' '));
  for (const [i, id] of ids.entries()) {
    t.regex(id, /^[a-z0-9][a-z0-9-]*(_[0-9a-f]{8})?$|^store_[0-9a-f]{8}$/, `${NAMES[i]} → ${id}`);
    t.true(id.length <= 49, id);
    t.is(storeIdFor(NAMES[i]!), id, 'the same name always gives the same id');
  }
  // A slug that spells the name exactly is the id; anything else carries the hash.
  t.is(storeIdFor('notes'), 'notes');
  t.is(storeIdFor('my-notes-2'), 'my-notes-2');
  t.regex(storeIdFor('Notes'), /^notes_[0-9a-f]{8}$/);
  t.regex(storeIdFor('Заметки'), /^zametki_[0-9a-f]{8}$/, 'Cyrillic is transliterated');
  t.regex(storeIdFor('Łódź Straße'), /^lodz-strasse_[0-9a-f]{8}$/);
  t.regex(storeIdFor('Ελληνικά'), /^ellinika_[0-9a-f]{8}$/);
  t.regex(storeIdFor('日本語メモ'), /^store_[0-9a-f]{8}$/, 'no transliteration: the hash alone');
  t.regex(storeIdFor('Notes 🚀'), /^notes_[0-9a-f]{8}$/);
  // The same text in another Unicode normalization is the same name.
  t.is(storeIdFor('Cafe\u0301'), storeIdFor('Café'));
});

test('stores named in several scripts can all be created and found by name', async (t) => {
  const home = await homeWithStarter();
  const names = [
    'Заметки',
    '日本語メモ',
    'ملاحظات',
    'Notes',
    'notes',
    'NOTES',
    'Notes 🚀',
    'no tes',
    'no-tes',
  ];
  for (const name of names) await createStore({ name, modelId: 'kortty-lexical-starter' }, home);
  const stores = await listStores(home);
  t.deepEqual(stores.map((s) => s.name).sort(), [...names].sort());
  t.is(new Set(stores.map((s) => s.id)).size, names.length);
  t.is((await readdir(storeDir('', home))).length, names.length);
  for (const name of names) t.is((await findStore(name, home)).name, name);
  const again = await t.throwsAsync(
    createStore({ name: 'Заметки', modelId: 'kortty-lexical-starter' }, home),
  );
  t.is((again as { code?: string }).code, 'STORE_EXISTS');

  // Through the CLI too: the sequence.
  const cli = await homeWithStarter();
  for (const name of ['Заметки', '日本語メモ']) {
    const c = captureIO({ env: { ...process.env, KORTTY_HOME: cli } });
    t.is(await main(['store', 'create', name], c.io), 0, c.stderr());
    t.regex(c.stdout(), new RegExp(`^created store "${name}"`));
  }
});

test('a store made by an older version keeps its bare-slug id; a new name with that slug gets another', async (t) => {
  const home = await homeWithStarter();
  const made = await createStore({ name: 'Scratch', modelId: 'kortty-lexical-starter' }, home);
  // Rewrite it as an older version would have left it: id "notes" for the name "Notes".
  const legacy = { ...made, id: 'notes', name: 'Notes' };
  await mkdir(storeDir('notes', home), { recursive: true });
  await writeFile(storeConfigPath('notes', home), JSON.stringify(legacy, null, 2));
  t.is((await findStore('Notes', home)).id, 'notes');
  t.is((await findStore('notes', home)).name, 'Notes', 'found by its id');
  const fresh = await createStore({ name: 'notes', modelId: 'kortty-lexical-starter' }, home);
  t.regex(fresh.id, /^notes_[0-9a-f]{8}$/);
  t.is((await findStore('Notes', home)).id, 'notes', 'the older store is untouched');
  const dup = await t.throwsAsync(createStore({ name: 'Notes', modelId: 'kortty-lexical-starter' }, home));
  t.is((dup as { code?: string }).code, 'STORE_EXISTS');
  await deleteStore('Notes', {}, home);
  t.is((await findStore('notes', home)).id, fresh.id);
});
