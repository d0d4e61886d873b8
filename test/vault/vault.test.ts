import { chmod, mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { isKorttyError, type KorttyError } from '../../src/errors.js';
import { vaultPath } from '../../src/storage/paths.js';
import { openVault, qdrantSecretName } from '../../src/vault/vault.js';
import {
  DEFAULT_SCRYPT,
  encodeHeader,
  HEADER_LEN,
  type KdfFn,
  NONCE_LEN,
  SALT_LEN,
  type ScryptParams,
  scryptKdf,
  VAULT_MAGIC,
} from '../../src/vault/vault-format.js';

// Small, in-bounds scrypt parameters: only ever passed explicitly, as the option exists for.
const FAST: ScryptParams = { log2N: 10, r: 1, p: 1 };
const PASS = 'correct horse battery staple ✓';
const SECRET = 'kq-vault-secret-3f9a1c';
const VAULT_CODES = ['VAULT_CORRUPT', 'VAULT_VERSION', 'VAULT_KDF_PARAMS', 'VAULT_BAD_PASSPHRASE'];

process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-vault-home-'));

async function tempVaultPath(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'kortty-vault-')), 'vault');
}

function spyKdf(): KdfFn & { calls: ScryptParams[] } {
  const calls: ScryptParams[] = [];
  const fn = (async (pass, salt, params) => {
    calls.push(params);
    return scryptKdf(pass, salt, params);
  }) as KdfFn & { calls: ScryptParams[] };
  fn.calls = calls;
  return fn;
}

async function smallVault(): Promise<{ path: string; bytes: Buffer }> {
  const path = await tempVaultPath();
  const v = await openVault(PASS, { path, kdfParams: FAST });
  v.set('k', 'v');
  await v.save();
  return { path, bytes: await readFile(path) };
}

function assertNoSecrets(t: { false: (v: boolean, m?: string) => void }, err: unknown): void {
  const e = err as KorttyError;
  for (const s of [PASS, SECRET, 'correct horse']) {
    t.false(e.message.includes(s), 'message');
    t.false(String(e.stack).includes(s), 'stack');
    t.false(JSON.stringify(e).includes(s), 'json');
  }
}

test('round trip: secrets survive save and reopen; the file is 0600 and holds no plaintext', async (t) => {
  const path = await tempVaultPath();
  const v = await openVault(PASS, { path, kdfParams: FAST });
  t.true(v.isNew);
  v.set(qdrantSecretName('store-1'), SECRET);
  v.set('unicode', 'schlüssel-🔑');
  await v.save();
  const bytes = await readFile(path);
  t.true(bytes.subarray(0, 8).equals(VAULT_MAGIC));
  t.false(bytes.includes(Buffer.from(SECRET)));
  t.false(bytes.includes(Buffer.from('unicode')));
  t.false(bytes.includes(Buffer.from(PASS)));
  t.is((await stat(path)).mode & 0o777, 0o600);
  t.deepEqual(await readdir(join(path, '..')), ['vault']);

  const again = await openVault(PASS, { path, kdfParams: FAST });
  t.false(again.isNew);
  t.is(again.get('qdrant/store-1/api-key'), SECRET);
  t.is(again.get('unicode'), 'schlüssel-🔑');
  t.deepEqual(again.names(), ['qdrant/store-1/api-key', 'unicode']);
  t.true(again.delete('unicode'));
  await again.save();
  const third = await openVault(PASS, { path, kdfParams: FAST });
  t.deepEqual(third.names(), ['qdrant/store-1/api-key']);
  t.false(third.has('unicode'));
});

test('the passphrase is NFC-normalised (composed and decomposed spellings unlock the same vault)', async (t) => {
  const path = await tempVaultPath();
  const v = await openVault('caf\u00e9', { path, kdfParams: FAST });
  v.set('a', 'b');
  await v.save();
  t.is((await openVault('cafe\u0301', { path, kdfParams: FAST })).get('a'), 'b');
});

test('every save uses a fresh salt and nonce', async (t) => {
  const path = await tempVaultPath();
  const v = await openVault(PASS, { path, kdfParams: FAST });
  v.set('k', SECRET);
  await v.save();
  const first = await readFile(path);
  await v.save();
  const second = await readFile(path);
  const salt = (b: Buffer) => b.subarray(HEADER_LEN - NONCE_LEN - SALT_LEN, HEADER_LEN - NONCE_LEN);
  const nonce = (b: Buffer) => b.subarray(HEADER_LEN - NONCE_LEN, HEADER_LEN);
  t.false(salt(first).equals(salt(second)));
  t.false(nonce(first).equals(nonce(second)));
  t.is((await openVault(PASS, { path, kdfParams: FAST })).get('k'), SECRET);
});

test('every byte of the file tampered (two ways), every truncation and an appended byte are refused', async (t) => {
  const { path, bytes } = await smallVault();
  const seen = new Set<string>();
  const variants: [string, Buffer][] = [];
  for (let i = 0; i < bytes.length; i++) {
    for (const mask of [0x01, 0x80]) {
      const b = Buffer.from(bytes);
      b[i] = b[i]! ^ mask;
      variants.push([`byte ${i} ^ ${mask}`, b]);
    }
  }
  for (let n = 0; n < bytes.length; n++) variants.push([`truncated to ${n}`, bytes.subarray(0, n)]);
  variants.push(['appended byte', Buffer.concat([bytes, Buffer.from([0])])]);
  for (const [label, b] of variants) {
    await writeFile(path, b);
    const err = await t.throwsAsync(openVault(PASS, { path, kdfParams: FAST }), undefined, label);
    t.true(VAULT_CODES.includes((err as KorttyError).code), `${label}: ${err?.message}`);
    seen.add((err as KorttyError).code);
  }
  // Sanity: the untouched file still opens, so the refusals above are about the tampering.
  await writeFile(path, bytes);
  t.is((await openVault(PASS, { path, kdfParams: FAST })).get('k'), 'v');
  t.true(seen.has('VAULT_BAD_PASSPHRASE') && seen.has('VAULT_CORRUPT') && seen.has('VAULT_VERSION'));
});

test('wrong passphrase is refused without revealing anything', async (t) => {
  const path = await tempVaultPath();
  const v = await openVault(PASS, { path, kdfParams: FAST });
  v.set('k', SECRET);
  await v.save();
  const err = await t.throwsAsync(openVault('correct horse battery stapler', { path }));
  t.true(isKorttyError(err, 'VAULT_BAD_PASSPHRASE'));
  t.true(err!.message.includes(path));
  assertNoSecrets(t, err);
});

test('an unknown format version is refused before any key derivation', async (t) => {
  const { path, bytes } = await smallVault();
  const b = Buffer.from(bytes);
  b[VAULT_MAGIC.length] = 2;
  await writeFile(path, b);
  const kdf = spyKdf();
  const err = await t.throwsAsync(openVault(PASS, { path, kdf }));
  t.true(isKorttyError(err, 'VAULT_VERSION'));
  t.is((err as KorttyError).details.version, 2);
  t.is(kdf.calls.length, 0);
});

test('oversized KDF parameters in the file are refused before deriving', async (t) => {
  const cases: [string, ScryptParams][] = [
    ['N = 2^30', { log2N: 30, r: 8, p: 1 }],
    ['N = 2^21', { log2N: 21, r: 1, p: 1 }],
    ['r = 200', { log2N: 14, r: 200, p: 1 }],
    ['p = 64', { log2N: 14, r: 8, p: 64 }],
    ['memory 2^20·16 = 2 GiB', { log2N: 20, r: 16, p: 1 }],
    ['N below the floor', { log2N: 9, r: 8, p: 1 }],
    ['r = 0', { log2N: 14, r: 0, p: 1 }],
  ];
  const { path, bytes } = await smallVault();
  for (const [label, params] of cases) {
    const header = encodeHeader({
      params,
      salt: Buffer.alloc(SALT_LEN, 1),
      nonce: Buffer.alloc(NONCE_LEN, 2),
    });
    await writeFile(path, Buffer.concat([header, bytes.subarray(HEADER_LEN)]));
    const kdf = spyKdf();
    const err = await t.throwsAsync(openVault(PASS, { path, kdf }), undefined, label);
    t.true(isKorttyError(err, 'VAULT_KDF_PARAMS'), `${label}: ${err?.message}`);
    t.is(kdf.calls.length, 0, label);
  }
});

test('oversized write parameters are refused before deriving; defaults are within bounds', async (t) => {
  const path = await tempVaultPath();
  const kdf = spyKdf();
  for (const kdfParams of [
    { log2N: 24, r: 8, p: 1 },
    { log2N: 17, r: 8, p: 16 },
    { log2N: 20, r: 8, p: 1 },
  ]) {
    const err = await t.throwsAsync(openVault(PASS, { path, kdf, kdfParams }));
    t.true(isKorttyError(err, 'VAULT_KDF_PARAMS'), JSON.stringify(kdfParams));
  }
  t.is(kdf.calls.length, 0);
  // The default write parameters pass the same bounds (checked without deriving: the spy throws).
  const refusing: KdfFn = async () => {
    throw Object.assign(new Error('spy'), { code: 'SPY' });
  };
  const v = await openVault(PASS, { path, kdf: refusing });
  v.set('k', 'v');
  const err = await t.throwsAsync(v.save());
  t.regex(err!.message, /key derivation failed \(SPY\)/);
  t.deepEqual(DEFAULT_SCRYPT, { log2N: 17, r: 8, p: 1 });
});

test('a save replaces a too-open vault file with a 0600 one, atomically', async (t) => {
  const { path } = await smallVault();
  await chmod(path, 0o644);
  const v = await openVault(PASS, { path, kdfParams: FAST });
  v.set('k2', SECRET);
  await v.save();
  t.is((await stat(path)).mode & 0o777, 0o600);
  t.deepEqual(await readdir(join(path, '..')), ['vault']);
});

test('default location is $KORTTY_HOME/vault', async (t) => {
  const v = await openVault(PASS, { kdfParams: FAST });
  t.is(v.path, vaultPath());
  t.true(v.path.startsWith(process.env.KORTTY_HOME!));
  v.set('k', 'v');
  await v.save();
  t.is((await stat(vaultPath())).mode & 0o777, 0o600);
});

test('unreadable vault path and bad arguments give specific errors', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kortty-vault-'));
  await mkdir(join(dir, 'vault'));
  const err = await t.throwsAsync(openVault(PASS, { path: join(dir, 'vault'), kdfParams: FAST }));
  t.true(isKorttyError(err, 'IO_FAILED'));
  t.true(isKorttyError(await t.throwsAsync(openVault('', { path: join(dir, 'x') })), 'INVALID_ARGUMENT'));
  const v = await openVault(PASS, { path: join(dir, 'y'), kdfParams: FAST });
  const bad = t.throws(() => v.set('has space', SECRET));
  t.true(isKorttyError(bad, 'INVALID_ARGUMENT'));
  assertNoSecrets(t, bad);
});

test('overlapping saves are serialised and the last state wins', async (t) => {
  const path = await tempVaultPath();
  const v = await openVault(PASS, { path, kdfParams: FAST });
  v.set('a', '1');
  const p1 = v.save();
  v.set('b', '2');
  const p2 = v.save();
  await Promise.all([p1, p2]);
  const back = await openVault(PASS, { path, kdfParams: FAST });
  t.deepEqual(back.names(), ['a', 'b']);
  t.deepEqual(await readdir(join(path, '..')), ['vault']);
});
