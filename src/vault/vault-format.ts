import { createCipheriv, createDecipheriv, scrypt } from 'node:crypto';
import { z } from 'zod';
import { createError } from '../errors.js';
import { firstIssue } from '../util/json-check.js';

// The vault file format (pure: bytes in, bytes out; no file system).
//
//   offset size  field
//   0      8     magic "KRTYVALT"
//   8      1     format version (1)
//   9      1     KDF id (1 = scrypt)
//   10     1     log2(N)            scrypt cost, bounded before use
//   11     1     r                  scrypt block size
//   12     1     p                  scrypt parallelism
//   13     32    salt               fresh on every write
//   45     12    nonce              fresh on every write
//   57     n     ciphertext         AES-256-GCM of UTF-8 JSON {"v":1,"secrets":{name: secret}}
//   57+n   16    GCM tag
//
// The header (bytes 0..56) is the GCM associated data, so changing any header byte, like any
// ciphertext byte, fails authentication. KDF parameters are checked against fixed bounds before
// anything is derived, so a hostile file cannot make us allocate gigabytes or spin for minutes.

export const VAULT_MAGIC = Buffer.from('KRTYVALT', 'ascii');
export const VAULT_VERSION = 1;
export const KDF_SCRYPT = 1;
export const SALT_LEN = 32;
export const NONCE_LEN = 12;
export const TAG_LEN = 16;
export const HEADER_LEN = VAULT_MAGIC.length + 5 + SALT_LEN + NONCE_LEN;

export interface ScryptParams {
  log2N: number;
  r: number;
  p: number;
}

/** 128 MiB, a few hundred ms on a laptop core (the OWASP scrypt recommendation). */
export const DEFAULT_SCRYPT: ScryptParams = { log2N: 17, r: 8, p: 1 };
export const SCRYPT_BOUNDS = {
  log2N: [10, 20],
  r: [1, 16],
  p: [1, 4],
  /** Largest memory a vault file may ask for. */
  maxMemoryBytes: 256 * 1024 * 1024,
} as const;

/** What OpenSSL's scrypt allocates: 128·r·(N + p + 2) bytes. */
export function scryptMemory(params: ScryptParams): number {
  return 128 * params.r * (2 ** params.log2N + params.p + 2);
}

/** null when the parameters are within bounds; otherwise the reason. */
export function kdfParamsProblem(params: ScryptParams): string | null {
  for (const k of ['log2N', 'r', 'p'] as const) {
    const v = params[k];
    const [lo, hi] = SCRYPT_BOUNDS[k];
    if (!Number.isInteger(v) || v < lo || v > hi) return `${k} = ${v} is outside ${lo}..${hi}`;
  }
  const mem = scryptMemory(params);
  if (mem > SCRYPT_BOUNDS.maxMemoryBytes) {
    return `needs ${Math.ceil(mem / 2 ** 20)} MiB, more than ${SCRYPT_BOUNDS.maxMemoryBytes / 2 ** 20} MiB`;
  }
  return null;
}

export type KdfFn = (passphrase: Buffer, salt: Buffer, params: ScryptParams) => Promise<Buffer>;

/** The real KDF: scrypt to a 32-byte AES key, with maxmem sized to exactly what the bounded params need. */
export const scryptKdf: KdfFn = (passphrase, salt, params) =>
  new Promise((resolve, reject) => {
    const opts = { N: 2 ** params.log2N, r: params.r, p: params.p, maxmem: scryptMemory(params) + 2 ** 20 };
    scrypt(passphrase, salt, 32, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });

export interface VaultHeader {
  params: ScryptParams;
  salt: Buffer;
  nonce: Buffer;
}

export function encodeHeader(h: VaultHeader, version = VAULT_VERSION): Buffer {
  const b = Buffer.alloc(HEADER_LEN);
  VAULT_MAGIC.copy(b, 0);
  let o = VAULT_MAGIC.length;
  b[o++] = version;
  b[o++] = KDF_SCRYPT;
  b[o++] = h.params.log2N;
  b[o++] = h.params.r;
  b[o++] = h.params.p;
  h.salt.copy(b, o, 0, SALT_LEN);
  h.nonce.copy(b, o + SALT_LEN, 0, NONCE_LEN);
  return b;
}

export interface ParsedVault {
  header: VaultHeader;
  headerBytes: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

/** Structural checks, in order: length, magic, version, KDF id, KDF bounds. Nothing is derived here. */
export function parseVaultFile(bytes: Buffer, path: string): ParsedVault {
  const corrupt = (reason: string) => createError('VAULT_CORRUPT', { path, reason });
  if (bytes.length < VAULT_MAGIC.length || !bytes.subarray(0, VAULT_MAGIC.length).equals(VAULT_MAGIC)) {
    throw corrupt('not a kortty vault (bad magic)');
  }
  const version = bytes[VAULT_MAGIC.length]!;
  if (version !== VAULT_VERSION) throw createError('VAULT_VERSION', { path, version });
  if (bytes.length < HEADER_LEN + TAG_LEN) throw corrupt(`truncated at ${bytes.length} bytes`);
  const kdf = bytes[VAULT_MAGIC.length + 1]!;
  if (kdf !== KDF_SCRYPT) throw corrupt(`unknown key derivation id ${kdf}`);
  const o = VAULT_MAGIC.length + 2;
  const params: ScryptParams = { log2N: bytes[o]!, r: bytes[o + 1]!, p: bytes[o + 2]! };
  const problem = kdfParamsProblem(params);
  if (problem) throw createError('VAULT_KDF_PARAMS', { path, reason: problem });
  const salt = Buffer.from(bytes.subarray(o + 3, o + 3 + SALT_LEN));
  const nonce = Buffer.from(bytes.subarray(o + 3 + SALT_LEN, HEADER_LEN));
  return {
    header: { params, salt, nonce },
    headerBytes: Buffer.from(bytes.subarray(0, HEADER_LEN)),
    ciphertext: Buffer.from(bytes.subarray(HEADER_LEN, bytes.length - TAG_LEN)),
    tag: Buffer.from(bytes.subarray(bytes.length - TAG_LEN)),
  };
}

export function sealVault(key: Buffer, header: VaultHeader, plaintext: Buffer): Buffer {
  const headerBytes = encodeHeader(header);
  const c = createCipheriv('aes-256-gcm', key, header.nonce, { authTagLength: TAG_LEN });
  c.setAAD(headerBytes);
  const body = Buffer.concat([c.update(plaintext), c.final()]);
  return Buffer.concat([headerBytes, body, c.getAuthTag()]);
}

/** Authenticated decryption; any mismatch (passphrase, header, body, tag) is one indistinguishable failure. */
export function unsealVault(key: Buffer, v: ParsedVault, path: string): Buffer {
  try {
    const d = createDecipheriv('aes-256-gcm', key, v.header.nonce, { authTagLength: TAG_LEN });
    d.setAAD(v.headerBytes);
    d.setAuthTag(v.tag);
    return Buffer.concat([d.update(v.ciphertext), d.final()]);
  } catch {
    throw createError('VAULT_BAD_PASSPHRASE', { path });
  }
}

export function encodeSecrets(secrets: ReadonlyMap<string, string>): Buffer {
  const obj: Record<string, string> = {};
  for (const name of [...secrets.keys()].sort()) obj[name] = secrets.get(name)!;
  return Buffer.from(JSON.stringify({ v: 1, secrets: obj }), 'utf8');
}

/** The decrypted document: one version, names → secrets. */
const secretsDocSchema = z.object({ v: z.literal(1), secrets: z.record(z.string(), z.string()) });

export function decodeSecrets(plaintext: Buffer, path: string): Map<string, string> {
  let doc: unknown;
  try {
    doc = JSON.parse(plaintext.toString('utf8'));
  } catch {
    throw createError('VAULT_CORRUPT', { path, reason: 'decrypted content is not JSON' });
  }
  const r = secretsDocSchema.safeParse(doc);
  if (!r.success) {
    // Never what was found: it may be a secret.
    const { field, expected } = firstIssue(r.error, doc);
    throw createError('VAULT_CORRUPT', { path, reason: `decrypted content: ${field}: expected ${expected}` });
  }
  return new Map(Object.entries(r.data.secrets));
}
