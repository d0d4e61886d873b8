import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { STARTER_MODEL_ID } from '../../src/embed/starter-model.js';
import { shapeQuery } from '../../src/retrieve/query-shape.js';
import { search } from '../../src/retrieve/search.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore, findStore } from '../../src/store/engine.js';
import { homeWithStarter, writeTree } from '../helpers/store-env.js';

// Questions in everyday words against manual pages, through the real pipeline (starter model,
// snapshot, search()): a program named in prose leads to its page, a user's word finds the
// manual's, and a title that names the task outranks a page that repeats the question's words.

const page = (name: string, summary: string, body: string) =>
  `${name.toUpperCase()}(1)    User Commands    ${name.toUpperCase()}(1)\n\nNAME\n       ${name} - ${summary}\n\nDESCRIPTION\n${body}\n`;

let home = '';
test.before(async () => {
  home = await homeWithStarter();
  const root = await mkdtemp(join(tmpdir(), 'kortty-questions-src-'));
  const busy =
    'Directories can be excluded: --exclude=PATTERN excludes every directory and file it matches. ';
  await writeTree(root, {
    'tar.1.txt': page('tar', 'an archiving utility', busy.repeat(6)),
    'find.1.txt': page(
      'find',
      'search for files in a directory hierarchy',
      '       -prune  if the file is a directory, do not descend into it.\n       -name pattern  base of file name matches pattern.',
    ),
    'rm.1.txt': page(
      'rm',
      'remove files or directories',
      '       -r, --recursive  remove directories and their contents recursively',
    ),
    // bzcat's page is bzip2's text filed under another name, here rendered a little shorter (as
    // two renderers do): plain BM25 puts the shorter one first.
    ...Object.fromEntries(
      [
        ['bzcat.1.txt', ''],
        ['bzip2.1.txt', '       The options are described below, each with its long form.\n'.repeat(4)],
      ].map(([f, more]) => [
        f,
        page(
          'bzip2, bunzip2',
          'a block-sorting file compressor',
          `       bzip2 compresses files using the Burrows-Wheeler block sorting text compression algorithm.\n${more}`,
        ),
      ]),
    ),
    'notes.1.txt': page(
      'notes',
      'keep notes',
      '       Notes about photos: delete the old ones and keep a folder for each year of photos. '.repeat(3),
    ),
  });
  await createStore({ name: 'Pages', modelId: STARTER_MODEL_ID }, home);
  await addSources('Pages', [{ kind: 'folder', path: root }], { ports: createDefaultPorts(home) }, home);
});

const first = async (query: string) => {
  const deps = createSearchDeps(home);
  try {
    const r = await search({ stores: [await findStore('Pages', home)], query }, deps);
    return { page: r.excerpts[0]!.path.replace(/^.*\//, ''), programs: shapeQuery(query).programs };
  } finally {
    await deps.close();
  }
};

test.serial('a program the question names leads to its page; unnamed, the words decide', async (t) => {
  const named = await first('how to exclude a directory when using find');
  t.deepEqual(named.programs, ['find']);
  t.is(named.page, 'find.1.txt');
  const unnamed = await first('how to exclude a directory');
  t.deepEqual(unnamed.programs, []);
  t.is(unnamed.page, 'tar.1.txt');
});

test.serial('a user word finds the manual word: delete a folder with everything in it', async (t) => {
  // `delete` and `folder` are the notes page's words; rm's title and body say remove and directories.
  t.is((await first('delete a folder with everything in it recursively')).page, 'rm.1.txt');
});

test.serial('of two pages with one text, the one filed under the program’s name leads', async (t) => {
  // bzcat's page lists bzip2 on its NAME line and sorts first; bzip2's is filed under the name.
  const out = await first('bzip2: notes.txt is not a bzip2 file.');
  t.deepEqual(out.programs, ['bzip2']);
  t.is(out.page, 'bzip2.1.txt');
});
