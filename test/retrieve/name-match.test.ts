import { spawnSync } from 'node:child_process';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { STARTER_MODEL_ID } from '../../src/embed/starter-model.js';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { shapeQuery } from '../../src/retrieve/query-shape.js';
import { search } from '../../src/retrieve/search.js';
import { snapshotPath } from '../../src/storage/paths.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore, findStore } from '../../src/store/engine.js';
import { runProgram } from '../helpers/run-program.js';
import { homeWithStarter, prose, tempDir, writeTree } from '../helpers/store-env.js';

// The name match through search() on real stores (the starter model, real snapshots): the page
// named after the program a selection shows comes first, also over a page that mentions the
// program everywhere, and also when the two are in different stores.

let home = '';
let tarOutput = '';

const TAR_PAGE = [
  'TAR(1)                       GNU TAR Manual                       TAR(1)',
  '',
  'NAME',
  '       tar - an archiving utility',
  '',
  'DESCRIPTION',
  '       GNU tar saves many files together into a single tape or disk archive,',
  '       and can restore individual files from the archive.',
  '',
].join('\n');
// A page about something else that names tar in every line, as lesspipe's and gzip's pages do.
const BUSY_PAGE = `# Viewing archives\n\n${Array.from(
  { length: 30 },
  (_, i) =>
    `Line ${i}: a tar.gz or tar file the viewer cannot open shows as raw bytes; an error in tar exits the viewer.`,
).join('\n')}\n`;

// What rsync's page says of the option and the exit code of the selection below.
const RSYNC_OPTIONS = [
  '       rsync -avz foo:src/bar /data/tmp',
  '',
  'OPTIONS SUMMARY',
  '       Here is a short summary of the options available in rsync.',
  '       --delete-after           receiver deletes after transfer, not during',
  '       --delete-delay           find deletions during, delete after',
  '',
  'EXIT VALUES',
  '       1      Syntax or usage error',
  '',
].join('\n');

// The rest of a collection: the name's idf counts over every chunk of the store, as in real use.
const others = (topic: string) =>
  Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [
      `${topic}-${i}.md`,
      `# ${topic} ${i}\n\n${prose(`${topic} page`, 4, i + 11)}`,
    ]),
  );

const manPage = (name: string, summary: string) =>
  [
    `${name.toUpperCase()}(1)            User Commands            ${name.toUpperCase()}(1)`,
    '',
    'NAME',
    `       ${name} - ${summary}`,
    '',
    'DESCRIPTION',
    '',
  ].join('\n');

test.before(async () => {
  home = await homeWithStarter();
  const scratch = await tempDir('kortty-name-run-');
  const archive = join(scratch, 'site-backup.tar.gz');
  await writeFile(archive, 'not an archive\n');
  const r = spawnSync('tar', ['-xzf', archive], {
    encoding: 'utf8',
    cwd: scratch,
    env: { ...process.env, LC_ALL: 'C' },
  });
  tarOutput = `${r.stdout}${r.stderr}`.trim();

  const one = await tempDir('kortty-name-one-');
  await writeTree(one, {
    'tar.txt': `${TAR_PAGE}${prose('archive files tape', 6, 3)}`,
    'archive-viewer.md': BUSY_PAGE,
    'bikes.md': `# Bicycles\n\n${prose('bicycle chain lubrication', 8, 7)}`,
    ...others('garden'),
  });
  await createStore({ name: 'Both', modelId: STARTER_MODEL_ID }, home);
  await addSources('Both', [{ kind: 'folder', path: one }], { ports: createDefaultPorts(home) }, home);

  // The same two pages split over two stores.
  const pages = await tempDir('kortty-name-pages-');
  const notes = await tempDir('kortty-name-notes-');
  await writeTree(pages, {
    'tar.txt': `${TAR_PAGE}${prose('archive files tape', 6, 3)}`,
    ...others('printer'),
  });
  await writeTree(notes, { 'archive-viewer.md': BUSY_PAGE, ...others('garden') });
  await createStore({ name: 'Pages', modelId: STARTER_MODEL_ID }, home);
  await createStore({ name: 'Notes', modelId: STARTER_MODEL_ID }, home);
  await addSources('Pages', [{ kind: 'folder', path: pages }], { ports: createDefaultPorts(home) }, home);
  await addSources('Notes', [{ kind: 'folder', path: notes }], { ports: createDefaultPorts(home) }, home);

  // A shell's page and kill's; no page for cd, which is a builtin only.
  const shell = await tempDir('kortty-name-shell-');
  await writeTree(shell, {
    'bash.txt': `${manPage('bash', 'GNU Bourne-Again SHell')}${prose('shell command process job', 8, 5)}`,
    'kill.txt': `${manPage('kill', 'send a signal to a process')}${prose('signal process', 4, 9)}`,
    ...others('kitchen'),
  });
  await createStore({ name: 'Shell', modelId: STARTER_MODEL_ID }, home);
  await addSources('Shell', [{ kind: 'folder', path: shell }], { ports: createDefaultPorts(home) }, home);

  // git's page with its log subcommand's page, and git's alone.
  const gitPage = `${manPage('git', 'the stupid content tracker')}${prose('repository commit branch', 8, 13)}`;
  const withLog = await tempDir('kortty-name-git-');
  await writeTree(withLog, {
    'git.txt': gitPage,
    'git-log.txt': `${manPage('git-log', 'Show commit logs')}${prose('commit history graph', 6, 17)}`,
    ...others('kitchen'),
  });
  // hd's page is hexdump's under another file name (a man-db symlink rendered twice): it is filed
  // under hd and lists hexdump.
  const dumpPage = `${manPage('hexdump', 'display file contents in hexadecimal, decimal, octal, or ascii')}${prose('bytes offset format canonical', 6, 19)}`;
  const dumps = await tempDir('kortty-name-dump-');
  await writeTree(dumps, { 'hd.txt': dumpPage, 'hexdump.txt': dumpPage, ...others('kitchen') });
  await createStore({ name: 'Dump', modelId: STARTER_MODEL_ID }, home);
  await addSources('Dump', [{ kind: 'folder', path: dumps }], { ports: createDefaultPorts(home) }, home);
  // git's page, its stash subcommand's, and a note on the same topic under another name.
  const family = await tempDir('kortty-name-git-family-');
  await writeTree(family, {
    'git.txt': gitPage,
    'git-stash.txt': `${manPage('git-stash', 'Stash the changes in a dirty working directory away')}${prose('stash uncommitted changes aside later', 6, 23)}`,
    'shelving.md': `# Shelving work\n\n${prose('set uncommitted changes aside for later', 6, 29)}`,
    ...others('kitchen'),
  });
  await createStore({ name: 'GitFamily', modelId: STARTER_MODEL_ID }, home);
  await addSources(
    'GitFamily',
    [{ kind: 'folder', path: family }],
    { ports: createDefaultPorts(home) },
    home,
  );
  // Debian files awk's manual as mawk's: awk is a link to mawk through the alternatives system.
  // The user-account page names the fields of /etc/passwd everywhere, as passwd's and pwck's do.
  const awk = await tempDir('kortty-name-awk-');
  await writeTree(awk, {
    'mawk.txt': `${manPage('mawk', 'pattern scanning and text processing language')}${prose('pattern action field record', 6, 31)}`,
    'accounts.md': `# User accounts\n\n${Array.from(
      { length: 20 },
      (_, i) => `Entry ${i}: /etc/passwd holds a login name, a uid of 1000 or more, a home and a shell.`,
    ).join('\n')}\n`,
    ...others('kitchen'),
  });
  await createStore({ name: 'Awk', modelId: STARTER_MODEL_ID }, home);
  await addSources('Awk', [{ kind: 'folder', path: awk }], { ports: createDefaultPorts(home) }, home);
  // rsync's long manual (many chunks, so its name is common among them) and du's short page.
  const sync = await tempDir('kortty-name-sync-');
  await writeTree(sync, {
    'rsync.txt': `${manPage('rsync', 'a fast, versatile, remote (and local) file-copying tool')}${RSYNC_OPTIONS}${prose('transfer delta remote', 600, 37)}`,
    'du.txt': `${manPage('du', 'estimate file space usage')}${prose('disk usage summary', 6, 41)}`,
    ...others('kitchen'),
  });
  await createStore({ name: 'Sync', modelId: STARTER_MODEL_ID }, home);
  await addSources('Sync', [{ kind: 'folder', path: sync }], { ports: createDefaultPorts(home) }, home);
  const gitAlone = await tempDir('kortty-name-git-alone-');
  await writeTree(gitAlone, { 'git.txt': gitPage, ...others('kitchen') });
  for (const [name, dir] of [
    ['Git', withLog],
    ['GitAlone', gitAlone],
  ] as const) {
    await createStore({ name, modelId: STARTER_MODEL_ID }, home);
    await addSources(name, [{ kind: 'folder', path: dir }], { ports: createDefaultPorts(home) }, home);
  }
});

test.serial(
  "a subcommand's own page leads its program's; where it has none, the program's leads",
  async (t) => {
    const deps = createSearchDeps(home);
    const pages = async (store: string, query: string) =>
      (await search({ stores: [await findStore(store, home)], query, mode: 'lexical' }, deps)).excerpts.map(
        (e) => e.path.replace(/^.*\//, ''),
      );
    try {
      for (const line of ['git log --oneline --graph --decorate --all', 'git -C repo --no-pager log -n 20']) {
        const withLog = await pages('Git', line);
        t.deepEqual(withLog.slice(0, 2), ['git-log.txt', 'git.txt'], line);
        t.is((await pages('GitAlone', line))[0], 'git.txt', line);
      }
    } finally {
      await deps.close();
    }
  },
);

test.serial(
  "a question naming git: git's other pages share its name, output naming git does not",
  async (t) => {
    const deps = createSearchDeps(home);
    const pages = async (query: string) =>
      (
        await search({ stores: [await findStore('GitFamily', home)], query, mode: 'lexical' }, deps)
      ).excerpts.map((e) => e.path.replace(/^.*\//, ''));
    try {
      const question = 'in git, how do I set my uncommitted changes aside for later?';
      t.like(shapeQuery(question), { programs: ['git'], prose: true });
      // git-stash's page answers it; with git's name bonus alone, git's overview would lead.
      const asked = await pages(question);
      t.is(asked[0], 'git-stash.txt', asked.join());
      t.true(asked.indexOf('git.txt') < asked.indexOf('shelving.md'), asked.join());
      // The same words with no program named: the note and the subcommand's page compete on words.
      t.like(shapeQuery('set my uncommitted changes aside for later'), { programs: [], prose: false });
      // A command line shows git itself: its page leads, and git-stash's gains nothing from the name.
      const line = 'git --no-pager status --short';
      t.like(shapeQuery(line), { prose: false });
      t.true(shapeQuery(line).programs.includes('git'));
      const r = await search(
        { stores: [await findStore('GitFamily', home)], query: line, mode: 'lexical' },
        deps,
      );
      t.is(r.excerpts[0]!.path.replace(/^.*\//, ''), 'git.txt');
      t.true(
        r.candidates
          .filter((c) => c.path.endsWith('git-stash.txt'))
          .every((c) => c.explain!.shares.name === 0),
      );
    } finally {
      await deps.close();
    }
  },
);

test.serial('a document bearing two of the named programs gains the larger bonus, not both', async (t) => {
  const deps = createSearchDeps(home);
  try {
    const dump = runProgram('hexdump', ['-C'], { input: 'ELF binary header\n' });
    t.regex(dump, /^00000000 {2}45 4c 46 /);
    const r = await search({ stores: [await findStore('Dump', home)], query: dump, mode: 'lexical' }, deps);
    t.deepEqual(shapeQuery(dump).programs.slice(0, 2), ['hexdump', 'hd']);
    // hexdump.txt is filed under the first name; hd.txt under the second and lists the first. Added
    // up, the two bonuses of hd.txt would put the copy first.
    t.is(r.excerpts[0]?.path.replace(/^.*\//, ''), 'hexdump.txt');
    const byPath = new Map(r.candidates.map((c) => [c.path.replace(/^.*\//, ''), c]));
    t.true(byPath.get('hd.txt')!.fusedScore < byPath.get('hexdump.txt')!.fusedScore);
  } finally {
    await deps.close();
  }
});

// stderr of a real bash -c: its builtins' errors name the builtin after the shell.
const bashError = (script: string) =>
  spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } }).stderr.trim();

test.serial("a shell's error about a command: the command's page leads, the shell's follows", async (t) => {
  // The pid of a process that has exited: kill finds no such process.
  const gone = spawnSync('true').pid;
  const killed = bashError(`kill ${gone}`);
  t.regex(killed, /^bash: line 1: kill: \(\d+\) - No such process$/);
  const deps = createSearchDeps(home);
  try {
    const store = await findStore('Shell', home);
    const r = await search({ stores: [store], query: killed, mode: 'lexical' }, deps);
    const pages = r.excerpts.map((e) => e.path.replace(/^.*\//, ''));
    t.is(pages[0], 'kill.txt', pages.join());
    t.true(pages.includes('bash.txt'), pages.join());
    // cd has no page: the shell's page leads, its name weighing as if named alone.
    const cd = bashError('cd /nonexistent-kortty');
    t.regex(cd, /^bash: line 1: cd: \/nonexistent-kortty: No such file or directory$/);
    const c = await search({ stores: [store], query: cd, mode: 'lexical' }, deps);
    t.true(c.excerpts[0]!.path.endsWith('bash.txt'), c.excerpts.map((e) => e.path).join());
  } finally {
    await deps.close();
  }
});

test.serial("a program installed under another name matches that name's page (awk is mawk)", async (t) => {
  // Real links in a PATH of the test's own: `awk` → mawk in one, a plain `awk` file in the other.
  const bins = await tempDir('kortty-name-bins-');
  const [linked, plain] = [join(bins, 'linked'), join(bins, 'plain')];
  await writeTree(bins, { 'real/mawk': '#!/bin/sh\n', 'plain/awk': '#!/bin/sh\n', 'linked/.keep': '' });
  await symlink(join(bins, 'real', 'mawk'), join(linked, 'awk'));
  const query = "awk -F: '$3 >= 1000 && $7 !~ /nologin/ {print $1, $6}' /etc/passwd";
  const first = async (path: string) => {
    const deps = createSearchDeps(home, { ...process.env, PATH: `relative/bin:${path}` });
    try {
      const r = await search({ stores: [await findStore('Awk', home)], query }, deps);
      return r.excerpts[0]?.path.replace(/^.*\//, '');
    } finally {
      await deps.close();
    }
  };
  t.is(await first(linked), 'mawk.txt');
  // Where awk is no link, nothing names mawk: the page that repeats the query's words leads.
  t.is(await first(plain), 'accounts.md');
});

test.serial('a program no document is named after takes no rank among the names', async (t) => {
  const store = await findStore('Shell', home);
  const snap = (await openSnapshot(snapshotPath(store.id, home), { expectFingerprint: store.fingerprint }))!;
  try {
    const ranks = (programs: string[]) =>
      Object.fromEntries([...snap.lexicalStats('process', programs).names].map(([k, v]) => [k, v.rank]));
    t.deepEqual(ranks(['cd', 'bash']), { bash: 0 });
    t.deepEqual(ranks(['kill', 'bash']), { kill: 0, bash: 1 });
    t.deepEqual(ranks(['tar', 'cd', 'kill']), { kill: 0 });
  } finally {
    snap.close();
  }
});

test.serial(
  "tar's real error output: the page named tar leads, over a page that mentions tar in every line",
  async (t) => {
    t.regex(tarOutput, /^tar: /m, 'tar really printed its error');
    const deps = createSearchDeps(home);
    try {
      const store = await findStore('Both', home);
      for (const mode of ['lexical', 'hybrid'] as const) {
        const shaped = await search({ stores: [store], query: tarOutput, mode }, deps);
        t.true(
          shaped.excerpts[0]!.path.endsWith('tar.txt'),
          `${mode}: ${shaped.excerpts.map((e) => e.path)}`,
        );
        t.true(shaped.excerpts[0]!.explain!.shares.name > 0, JSON.stringify(shaped.excerpts[0]!.explain));
      }
      // Unshaped there is no program: the page full of the selection's words wins on words alone.
      const raw = await search({ stores: [store], query: tarOutput, mode: 'lexical', shape: false }, deps);
      t.true(raw.excerpts[0]!.path.endsWith('archive-viewer.md'), raw.excerpts.map((e) => e.path).join());
      t.true(raw.excerpts.every((e) => e.explain!.shares.name === 0));
      // A question names no program: no document gains anything from its name.
      const q = await search(
        { stores: [store], query: 'which viewer opens a tar file?', mode: 'lexical' },
        deps,
      );
      t.true(q.excerpts.every((e) => e.explain!.shares.name === 0));
    } finally {
      await deps.close();
    }
  },
);

test.serial(
  'across stores: the named page leads, and every lexical match stays below its ceiling',
  async (t) => {
    const deps = createSearchDeps(home);
    try {
      const stores = [await findStore('Notes', home), await findStore('Pages', home)];
      const res = await search({ stores, query: tarOutput, mode: 'lexical' }, deps);
      t.is(res.excerpts[0]!.storeName, 'Pages');
      t.true(res.excerpts[0]!.path.endsWith('tar.txt'));
      const matches = res.candidates.map((c) => c.lexicalMatch!);
      t.true(
        matches.every((m) => m > 0 && m < 1),
        JSON.stringify(matches),
      );
      // The notes store bears no page named tar, yet its ceiling holds the name bonus: its best hit
      // matches a smaller share of the query than it would alone.
      const alone = await search({ stores: [stores[0]!], query: tarOutput, mode: 'lexical' }, deps);
      const notesTop = (r: typeof res) => r.candidates.find((c) => c.storeName === 'Notes')!.lexicalMatch!;
      t.true(notesTop(res) < notesTop(alone), `${notesTop(res)} < ${notesTop(alone)}`);
    } finally {
      await deps.close();
    }
  },
);

test.serial(
  "a later program's short page never outranks the long page of the program named first",
  async (t) => {
    const dir = await tempDir('kortty-name-sync-run-');
    await writeTree(dir, { 'site/index.html': '<p>hi</p>\n' });
    const du = runProgram('du', ['-sh', 'site'], { cwd: dir });
    const rsync = runProgram('rsync', ['-avz', '--delete-afterr', 'site/', 'mirror/'], { cwd: dir });
    t.regex(rsync, /^rsync: (?:--delete-afterr: unknown option|unrecognized option '--delete-afterr')$/m);
    const selection = `$ du -sh site\n${du}\n$ rsync -avz --delete-afterr site/ mirror/\n${rsync}`;
    t.deepEqual(shapeQuery(selection).programs.slice(0, 2), ['rsync', 'du']);
    const deps = createSearchDeps(home);
    try {
      const store = await findStore('Sync', home);
      const snap = (await openSnapshot(snapshotPath(store.id, home), {
        expectFingerprint: store.fingerprint,
      }))!;
      const chunks = (name: string) => snap.data.docs.find((d) => d.path.endsWith(name))!.chunks.length;
      t.true(
        chunks('rsync.txt') >= 10 * chunks('du.txt'),
        `${chunks('rsync.txt')} and ${chunks('du.txt')} chunks`,
      );
      snap.close();
      const res = await search({ stores: [store], query: selection, mode: 'lexical' }, deps);
      const pages = res.excerpts.map((e) => e.path.replace(/^.*\//, ''));
      t.is(pages[0], 'rsync.txt', pages.join());
      t.true(pages.includes('du.txt'), pages.join());
      // du's bonus is bounded by rsync's (NAME_RANK_SHARE), though du's rarer name has the larger idf.
      const name = (page: string) => {
        const e = res.excerpts.find((x) => x.path.endsWith(page))!;
        return e.explain!.shares.name * e.lexicalScore!;
      };
      t.true(name('du.txt') <= 0.7 * name('rsync.txt') + 1e-9, `${name('du.txt')} vs ${name('rsync.txt')}`);
    } finally {
      await deps.close();
    }
  },
);
