import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { createInstalledNames } from '../../src/app/installed-names-file.js';
import { installedNamesFor } from '../../src/retrieve/installed-names.js';
import { tempDir } from '../helpers/store-env.js';

test('the names a resolved command file gives: its name, then its name before the first dot', (t) => {
  t.deepEqual(installedNamesFor('awk', '/usr/bin/mawk'), ['mawk']);
  t.deepEqual(installedNamesFor('vi', '/usr/bin/vim.basic'), ['vim.basic', 'vim']);
  t.deepEqual(installedNamesFor('nc', '/usr/bin/nc.openbsd'), ['nc.openbsd']);
  t.deepEqual(installedNamesFor('Tar', '/usr/bin/tar'), []);
  t.deepEqual(installedNamesFor('x', '/opt/bin/-weird'), []);
});

test('links on PATH are followed to the real file; plain files, missing names and unsafe names give none', async (t) => {
  const root = await tempDir('kortty-installed-');
  const [first, second, real] = ['first', 'second', 'real'].map((d) => join(root, d)) as [
    string,
    string,
    string,
  ];
  for (const d of [first, second, real]) await mkdir(d);
  await writeFile(join(real, 'mawk'), '#!/bin/sh\n');
  await writeFile(join(real, 'vim.basic'), '#!/bin/sh\n');
  // Debian's two hops: /usr/bin/awk → /etc/alternatives/awk → /usr/bin/mawk.
  await symlink(join(real, 'mawk'), join(second, 'alt-awk'));
  await symlink(join(second, 'alt-awk'), join(second, 'awk'));
  await symlink(join(real, 'vim.basic'), join(second, 'vi'));
  // The shell takes the first PATH entry: a plain `vi` there hides the link behind it.
  await writeFile(join(first, 'cat'), '#!/bin/sh\n');
  await symlink(join(real, 'vim.basic'), join(first, 'view'));
  const names = createInstalledNames({ PATH: ['relative', first, second].join(':') });
  t.deepEqual(names('awk'), ['mawk']);
  t.deepEqual(names('vi'), ['vim.basic', 'vim']);
  t.deepEqual(names('view'), ['vim.basic', 'vim']);
  t.deepEqual(names('cat'), []);
  t.deepEqual(names('nosuchprogram'), []);
  t.deepEqual(names('../real/mawk'), []);
  await writeFile(join(first, 'vi'), '#!/bin/sh\n');
  t.deepEqual(createInstalledNames({ PATH: `${first}:${second}` })('vi'), []);
  t.deepEqual(createInstalledNames({})('awk'), []);
});
