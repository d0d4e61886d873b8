import { existsSync } from 'node:fs';
import { mkdir, open, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { sha256File } from '../../src/embed/fingerprint.js';
import {
  addLocalModel,
  checkGgufHeader,
  fileIdentity,
  getInstalled,
  listInstalled,
  modelFilePath,
  modelRecordPath,
  registerModelFile,
  removeModel,
  verifyInstalled,
} from '../../src/embed/model-registry.js';
import type { KorttyError } from '../../src/errors.js';
import { modelsDir } from '../../src/storage/paths.js';
import { ggufBytes, sha256, tempHome } from './helpers.js';

test.before(async () => {
  process.env.KORTTY_HOME = await tempHome('registry');
});

async function userFile(home: string, name: string, bytes: Buffer): Promise<string> {
  const dir = join(home, 'user-files');
  await mkdir(dir, { recursive: true });
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

async function flipByte(path: string, at: number): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, at);
    b[0] = b[0]! ^ 0xff;
    await fh.write(b, 0, 1, at);
  } finally {
    await fh.close();
  }
}

test('add refuses a file that is not GGUF, naming the file and what it found', async (t) => {
  const home = await tempHome('add-bad');
  const cases: [string, Buffer, RegExp][] = [
    ['notes.gguf', Buffer.from('just some text, renamed to .gguf\n'), /not the GGUF magic/],
    ['zip.gguf', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100)]), /"PK/],
    ['short.gguf', Buffer.from('GGUF\x03\x00'), /too short/],
    [
      'v1.gguf',
      Buffer.concat([Buffer.from('GGUF'), Buffer.from([1, 0, 0, 0]), Buffer.alloc(40)]),
      /version 1/,
    ],
    ['empty.gguf', Buffer.alloc(0), /0 bytes/],
  ];
  for (const [name, bytes, why] of cases) {
    const path = await userFile(home, name, bytes);
    const err = await t.throwsAsync<KorttyError>(addLocalModel(path, { home }));
    t.is(err?.code, 'MODEL_INVALID', name);
    t.true(err?.message.includes(path), name);
    t.regex(err?.message ?? '', why, name);
  }
  const missing = await t.throwsAsync<KorttyError>(addLocalModel(join(home, 'nope.gguf'), { home }));
  t.is(missing?.code, 'MODEL_INVALID');
  t.deepEqual(await listInstalled(home), []);
});

test('add references a local GGUF in place, records its sha256, and verify passes without re-hashing', async (t) => {
  const home = await tempHome('add-ref');
  const bytes = ggufBytes(300_000);
  const path = await userFile(home, 'My Model.Q8_0.gguf', bytes);
  const record = await addLocalModel(path, { home });
  t.is(record.id, 'local:my-model.q8_0');
  t.is(record.source, 'local');
  t.is(record.sha256, sha256(bytes));
  t.is(record.size, bytes.length);
  t.is(record.file, path); // referenced, not copied
  t.false(existsSync(join(modelsDir(home), 'My Model.Q8_0.gguf')));
  t.deepEqual(
    (await listInstalled(home)).map((r) => r.id),
    ['local:my-model.q8_0'],
  );
  t.deepEqual(fileIdentity(record), {
    modelId: 'local:my-model.q8_0',
    fileName: 'My Model.Q8_0.gguf',
    fileSize: bytes.length,
    fileSha256: sha256(bytes),
  });
  const v = await verifyInstalled(record.id, { home });
  t.false(v.rehashed);
  t.is(v.path, path);
  // Adding the same file under the same id again is a no-op; another file may not take the id.
  t.is((await addLocalModel(path, { home })).sha256, record.sha256);
  const other = await userFile(home, 'other.gguf', ggufBytes(1000));
  const taken = await t.throwsAsync<KorttyError>(addLocalModel(other, { id: 'my-model.q8_0', home }));
  t.is(taken?.code, 'MODEL_EXISTS');
});

test('a model file changed after it was recorded is refused before use, even with its mtime put back', async (t) => {
  const home = await tempHome('changed');
  const path = await userFile(home, 'm.gguf', ggufBytes(200_000));
  const record = await addLocalModel(path, { home, id: 'm' });
  const before = await stat(path);
  await flipByte(path, 150_000);
  await utimes(path, before.atime, before.mtime); // hide the write from an mtime-only check
  const err = await t.throwsAsync<KorttyError>(verifyInstalled(record.id, { home }));
  t.is(err?.code, 'MODEL_CHANGED');
  t.true(err?.message.includes(path));
  // Still refused on the next use: the record was not updated to the new bytes.
  t.is((await t.throwsAsync<KorttyError>(verifyInstalled(record.id, { home })))?.code, 'MODEL_CHANGED');
  // Restoring the original bytes makes it usable again (the new stat identity is then remembered).
  await flipByte(path, 150_000);
  const v = await verifyInstalled(record.id, { home });
  t.true(v.rehashed);
  t.false((await verifyInstalled(record.id, { home })).rehashed);
});

test('a truncated or missing model file is refused with a specific code', async (t) => {
  const home = await tempHome('missing');
  const bytes = ggufBytes(100_000);
  const path = await userFile(home, 'm.gguf', bytes);
  await addLocalModel(path, { home, id: 'm' });
  await writeFile(path, bytes.subarray(0, 50_000));
  t.is((await t.throwsAsync<KorttyError>(verifyInstalled('local:m', { home })))?.code, 'MODEL_CHANGED');
  await writeFile(path, bytes);
  t.true((await verifyInstalled('local:m', { home })).rehashed);
  await unlink(path);
  const gone = await t.throwsAsync<KorttyError>(verifyInstalled('local:m', { home }));
  t.is(gone?.code, 'MODEL_FILE_MISSING');
  t.is(
    (await t.throwsAsync<KorttyError>(verifyInstalled('local:nothing', { home })))?.code,
    'MODEL_NOT_FOUND',
  );
});

test('add --copy places a copy in the models directory; remove deletes it, but never a referenced file', async (t) => {
  const home = await tempHome('copy');
  const bytes = ggufBytes(150_000);
  const path = await userFile(home, 'shared.gguf', bytes);
  const copied = await addLocalModel(path, { home, id: 'copied', copy: true });
  t.is(copied.file, 'shared.gguf');
  t.is(modelFilePath(copied, home), join(modelsDir(home), 'shared.gguf'));
  t.deepEqual(await readFile(join(modelsDir(home), 'shared.gguf')), bytes);
  const referenced = await addLocalModel(path, { home, id: 'referenced' });

  const r1 = await removeModel('local:copied', home);
  t.is(r1.deletedFile, join(modelsDir(home), 'shared.gguf'));
  t.false(existsSync(join(modelsDir(home), 'shared.gguf')));
  t.false(existsSync(modelRecordPath('local:copied', home)));

  const r2 = await removeModel(referenced.id, home);
  t.is(r2.deletedFile, null);
  t.deepEqual(await readFile(path), bytes); // the user's file is untouched
  t.deepEqual(await listInstalled(home), []);
  t.is((await t.throwsAsync<KorttyError>(removeModel('local:copied', home)))?.code, 'MODEL_NOT_FOUND');
});

test('a damaged install record is reported, and left out of the listing', async (t) => {
  const home = await tempHome('damaged');
  const path = await userFile(home, 'ok.gguf', ggufBytes(10_000));
  await addLocalModel(path, { home, id: 'ok' });
  const genPath = join(modelsDir(home), 'gen.gguf');
  await writeFile(genPath, ggufBytes(20_000));
  await registerModelFile(genPath, { id: 'gen', source: 'generated', home });
  await writeFile(modelRecordPath('gen', home), '{"version":1,"id":"gen",');
  const damaged = await t.throwsAsync<KorttyError>(getInstalled('gen', home));
  t.is(damaged?.code, 'FILE_INVALID');
  t.regex(
    damaged?.message ?? '',
    /gen\.json: damaged model install record: \(file\): expected JSON, found invalid JSON/,
  );
  t.deepEqual(
    (await listInstalled(home)).map((r) => r.id),
    ['local:ok'],
  );
});

test('checkGgufHeader accepts the generated GGUF v3 test file', async (t) => {
  const home = await tempHome('header');
  const path = await userFile(home, 'h.gguf', ggufBytes(200));
  await t.notThrowsAsync(checkGgufHeader(path));
});

test('sha256File: the running count, a stop from the callback unchanged, a read error naming the file', async (t) => {
  const home = await tempHome('sha256');
  const bytes = ggufBytes(3 * 1024 * 1024 + 7);
  const path = await userFile(home, 'h.gguf', bytes);
  const counts: number[] = [];
  t.is(await sha256File(path, (n) => counts.push(n)), sha256(bytes));
  t.is(counts.at(-1), bytes.length);
  t.true(counts.length >= 3 && counts.every((n, i) => i === 0 || n > counts[i - 1]!));
  const stop = new Error('stop');
  t.is(
    await t.throwsAsync(
      sha256File(path, () => {
        throw stop;
      }),
    ),
    stop,
  );
  const missing = await t.throwsAsync<KorttyError>(sha256File(join(home, 'nope.gguf')));
  t.is(missing?.code, 'IO_FAILED');
  t.true(missing?.message.includes(join(home, 'nope.gguf')), missing?.message);
});
