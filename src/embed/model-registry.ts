import type { Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { createError } from '../errors.js';
import { atomicWrite, errReason } from '../storage/atomic-write.js';
import { nodeFsEnv } from '../storage/fs-env.js';
import { korttyHome, modelsDir, TEMP_PREFIX } from '../storage/paths.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../storage/private-files.js';
import type { ModelFingerprint } from '../types.js';
import { parseJsonText } from '../util/json-check.js';
import { sanitizeLine } from '../util/terminal-text.js';
import { sha256File } from './fingerprint.js';
import { readGgufHeader } from './gguf-file.js';

// Installed embedding models: one JSON install record per model under
// `$KORTTY_HOME/rag/models/installed/`, the model files themselves in `$KORTTY_HOME/rag/models/`
// (or, for `models add` without --copy, wherever the user keeps them).
//
// "Checked before each use": every use calls verifyInstalled(). The record keeps the file's stat
// identity (dev, ino, size, mtime, ctime) from the last full sha256; when the file's stat still matches,
// the hash is trusted, otherwise the whole file is re-hashed and a different digest is refused with
// MODEL_CHANGED. Any write to the file, and any utimes() that tries to hide one, moves ctime, which
// user space cannot set back; so this skips re-reading gigabytes on every use without trusting mtime.

const modelSourceSchema = z.enum(['catalog', 'url', 'local', 'generated']);
export type ModelSource = z.infer<typeof modelSourceSchema>;

const statIdentitySchema = z.object({
  dev: z.number(),
  ino: z.number(),
  size: z.number(),
  mtimeMs: z.number(),
  ctimeMs: z.number(),
});
export type StatIdentity = z.infer<typeof statIdentitySchema>;

/** models/<id>.json: what was installed and how its file was verified. */
export const installRecordSchema = z.object({
  version: z.literal(1),
  id: z.string().min(1),
  /** File name inside the models directory, or an absolute path for a referenced local file. */
  file: z.string().min(1),
  size: z.number().int().nonnegative(),
  /** sha256 of the whole file, recorded at install. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  source: modelSourceSchema,
  url: z.string().optional(),
  installedAt: z.string(),
  verifiedAt: z.string(),
  verifiedStat: statIdentitySchema,
});
export type InstallRecord = z.infer<typeof installRecordSchema>;

export interface VerifiedModel {
  record: InstallRecord;
  path: string;
  /** True when the stat identity had changed and the file was hashed again. */
  rehashed: boolean;
}

const NAME_RE = /^[a-z0-9][a-z0-9._-]{0,79}$/;

/** Catalog and URL ids are plain names; local files get `local:<name>` (see ModelFingerprint.modelId). */
export function isValidModelId(id: string): boolean {
  return NAME_RE.test(id.startsWith('local:') ? id.slice('local:'.length) : id);
}

// ':' is not portable in file names; '@' never occurs in an id, so the encoding is unambiguous.
const encodeId = (id: string) => id.replace(':', '@');

export const modelRecordsDir = (home = korttyHome()) => join(modelsDir(home), 'installed');
export const modelRecordPath = (id: string, home = korttyHome()) =>
  join(modelRecordsDir(home), `${encodeId(id)}.json`);
/** Resumable downloads of one model (ipull keeps `<file>.ipull` here until the download completes). */
export const partialDownloadDir = (id: string, home = korttyHome()) =>
  join(modelsDir(home), '.partial', encodeId(id));

export function modelFilePath(record: InstallRecord, home = korttyHome()): string {
  return isAbsolute(record.file) ? record.file : join(modelsDir(home), record.file);
}

/** The file part of a store's model fingerprint; dimension, pooling and prefixes come from the provider. */
export function fileIdentity(
  record: InstallRecord,
): Pick<ModelFingerprint, 'modelId' | 'fileName' | 'fileSize' | 'fileSha256'> {
  return {
    modelId: record.id,
    fileName: basename(record.file),
    fileSize: record.size,
    fileSha256: record.sha256,
  };
}

export function statIdentity(st: Stats): StatIdentity {
  return { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
}

function sameStat(a: StatIdentity, b: StatIdentity): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs
  );
}

/**
 * Refuses anything that is not a little-endian GGUF v2/v3 file, naming what was found instead, and
 * a header whose counts or lengths the file cannot hold (GGUF_INVALID naming the field).
 */
export async function checkGgufHeader(path: string): Promise<void> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(path, 'r');
  } catch (err) {
    throw createError('MODEL_INVALID', { path, reason: errReason(err) }, err);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw createError('MODEL_INVALID', { path, reason: 'not a regular file' });
    const head = Buffer.alloc(24);
    const { bytesRead } = await fh.read(head, 0, 24, 0);
    const reason = ggufHeaderProblem(head.subarray(0, bytesRead));
    if (reason) throw createError('MODEL_INVALID', { path, reason });
  } finally {
    await fh.close();
  }
  // The whole header, every count checked against the bytes left before it is used.
  await readGgufHeader(path);
}

/** Pure check of the first 24 bytes: magic, version, counts. Returns the problem or undefined. */
export function ggufHeaderProblem(head: Uint8Array): string | undefined {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.length < 4) return `file is ${b.length} bytes, too short for a GGUF header`;
  const magic = b.subarray(0, 4).toString('latin1');
  if (magic !== 'GGUF') return `starts with ${JSON.stringify(magic)}, not the GGUF magic`;
  if (b.length < 24) return `file is ${b.length} bytes, too short for a GGUF header`;
  const version = b.readUInt32LE(4);
  if (version === 0x03000000 || version === 0x02000000) return 'big-endian GGUF files are not supported';
  if (version !== 2 && version !== 3) return `unsupported GGUF version ${version}`;
  const kvCount = b.readBigUInt64LE(16);
  if (kvCount === 0n) return 'GGUF header has no metadata';
  if (b.readBigUInt64LE(8) > 1_000_000n || kvCount > 1_000_000n) return 'GGUF header counts are implausible';
  return undefined;
}

function parseRecord(text: string, path: string): InstallRecord {
  return parseJsonText(text, installRecordSchema, path, 'model install record');
}

export async function getInstalled(id: string, home = korttyHome()): Promise<InstallRecord | undefined> {
  const path = modelRecordPath(id, home);
  let text: string;
  try {
    text = await fsp.readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw createError('IO_FAILED', { path, op: 'read', reason: errReason(err) }, err);
  }
  const record = parseRecord(text, path);
  if (record.id !== id)
    throw createError('FILE_INVALID', {
      path,
      kind: 'model install record',
      field: 'id',
      expected: JSON.stringify(id),
      found: sanitizeLine(JSON.stringify(record.id)),
    });
  return record;
}

/** All readable install records, sorted by id. A damaged record is left out (getInstalled names it). */
export async function listInstalled(home = korttyHome()): Promise<InstallRecord[]> {
  let names: string[];
  try {
    names = await fsp.readdir(modelRecordsDir(home));
  } catch {
    return [];
  }
  const out: InstallRecord[] = [];
  for (const name of names) {
    if (!name.endsWith('.json') || name.startsWith(TEMP_PREFIX)) continue;
    const path = join(modelRecordsDir(home), name);
    const text = await fsp.readFile(path, 'utf8').catch(() => '');
    let record: InstallRecord;
    try {
      record = parseRecord(text, path);
    } catch {
      continue;
    }
    if (`${encodeId(record.id)}.json` === name) out.push(record);
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

export async function writeRecord(record: InstallRecord, home = korttyHome()): Promise<void> {
  await fsp.mkdir(modelRecordsDir(home), { recursive: true, mode: PRIVATE_DIR_MODE });
  await atomicWrite(modelRecordPath(record.id, home), Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
}

/** Validate, hash and record a model file (used by install, `models add` and the starter generator). */
export async function registerModelFile(
  path: string,
  opts: { id: string; source: ModelSource; url?: string; sha256?: string; home?: string },
): Promise<InstallRecord> {
  const home = opts.home ?? korttyHome();
  if (!isValidModelId(opts.id))
    throw createError('INVALID_ARGUMENT', { name: 'id', reason: `"${opts.id}" is not a valid model id` });
  const abs = resolve(path);
  await checkGgufHeader(abs);
  const before = await fsp.stat(abs);
  const sha256 = opts.sha256 ?? (await sha256File(abs));
  const after = await fsp.stat(abs);
  if (!sameStat(statIdentity(before), statIdentity(after)))
    throw createError('MODEL_CHANGED', {
      path: abs,
      id: opts.id,
      reason: 'changed while it was being hashed',
    });
  const now = new Date().toISOString();
  const record: InstallRecord = {
    version: 1,
    id: opts.id,
    file: dirname(abs) === resolve(modelsDir(home)) ? basename(abs) : abs,
    size: after.size,
    sha256,
    source: opts.source,
    ...(opts.url ? { url: opts.url } : {}),
    installedAt: now,
    verifiedAt: now,
    verifiedStat: statIdentity(after),
  };
  await writeRecord(record, home);
  return record;
}

/**
 * The check before each use. Cheap when the file's stat identity is unchanged since the last full
 * hash; otherwise re-hashes the file and throws MODEL_CHANGED if the digest differs. `full` forces
 * the re-hash (`models verify`).
 */
export async function verifyInstalled(
  id: string,
  opts: { full?: boolean; home?: string; onBytes?: (hashed: number) => void } = {},
): Promise<VerifiedModel> {
  const home = opts.home ?? korttyHome();
  const record = await getInstalled(id, home);
  if (!record) throw createError('MODEL_NOT_FOUND', { id });
  const path = modelFilePath(record, home);
  let st: Stats;
  try {
    st = await fsp.stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw createError('MODEL_FILE_MISSING', { path, id });
    throw createError('IO_FAILED', { path, op: 'stat', reason: errReason(err) }, err);
  }
  const now = statIdentity(st);
  if (!opts.full && sameStat(now, record.verifiedStat)) return { record, path, rehashed: false };
  const changed = (got: string) => createError('MODEL_CHANGED', { path, id, want: record.sha256, got });
  if (st.size !== record.size) throw changed(`size ${st.size}`);
  const sha = await sha256File(path, opts.onBytes);
  if (sha !== record.sha256) throw changed(sha);
  // Same bytes, new stat (touched, copied back, restored from backup): remember the new identity.
  const updated: InstallRecord = { ...record, verifiedAt: new Date().toISOString(), verifiedStat: now };
  await writeRecord(updated, home);
  return { record: updated, path, rehashed: true };
}

function localName(file: string): string {
  const slug = basename(file)
    .replace(/\.gguf$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 80);
  return slug || 'model';
}

/**
 * "Use a local GGUF file". By default the file is referenced where it is, not copied: model files are
 * gigabytes and the user chose where to keep them; the recorded hash still catches any change, and
 * `models remove` never deletes a referenced file. `copy` places a copy in the models directory.
 */
export async function addLocalModel(
  path: string,
  opts: { id?: string; copy?: boolean; home?: string } = {},
): Promise<InstallRecord> {
  const home = opts.home ?? korttyHome();
  let real: string;
  try {
    real = await fsp.realpath(resolve(path));
  } catch (err) {
    throw createError('MODEL_INVALID', { path, reason: errReason(err) }, err);
  }
  await checkGgufHeader(real);
  const id = opts.id
    ? opts.id.startsWith('local:')
      ? opts.id
      : `local:${opts.id}`
    : `local:${localName(real)}`;
  if (!isValidModelId(id))
    throw createError('INVALID_ARGUMENT', {
      name: 'id',
      reason: `"${opts.id}" must be 1-80 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit`,
    });
  const dest = opts.copy ? join(modelsDir(home), basename(real)) : real;
  const existing = await getInstalled(id, home);
  if (existing) {
    if (modelFilePath(existing, home) === dest) return (await verifyInstalled(id, { home })).record;
    throw createError('MODEL_EXISTS', {
      path: modelFilePath(existing, home),
      reason: `model id "${id}" is already used by this file; choose another --id or remove "${id}" first`,
    });
  }
  if (opts.copy) await copyInto(real, dest, home);
  return registerModelFile(dest, { id, source: 'local', home });
}

async function copyInto(src: string, dest: string, home: string): Promise<void> {
  await fsp.mkdir(modelsDir(home), { recursive: true, mode: PRIVATE_DIR_MODE });
  if (await nodeFsEnv.exists(dest)) {
    if ((await sha256File(dest)) === (await sha256File(src))) return;
    throw createError('MODEL_EXISTS', {
      path: dest,
      reason: 'a different file with this name is already in the models directory',
    });
  }
  const tmp = join(modelsDir(home), `${TEMP_PREFIX}${basename(dest)}.${process.pid}`);
  try {
    await fsp.copyFile(src, tmp);
    const fh = await fsp.open(tmp, 'r+');
    await fh.sync().finally(() => fh.close());
    await placeWithoutOverwrite(tmp, dest);
  } finally {
    await fsp.unlink(tmp).catch(() => {});
  }
}

/**
 * Move `from` to `to` atomically, never replacing an existing `to` (rename would): link() fails with
 * EEXIST instead. Then drop the old name and make both directory entries durable.
 */
export async function placeWithoutOverwrite(from: string, to: string): Promise<void> {
  // A download or a copy keeps the mode it was written with (umask, or the copied file's own).
  await fsp.chmod(from, PRIVATE_FILE_MODE).catch(() => {});
  try {
    await fsp.link(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw createError('MODEL_EXISTS', {
        path: to,
        reason: 'another file appeared at this name; nothing was replaced',
      });
    throw createError('IO_FAILED', { path: to, op: 'link', reason: errReason(err) }, err);
  }
  await fsp.unlink(from);
  await nodeFsEnv.syncDir(dirname(to));
  if (dirname(from) !== dirname(to)) await nodeFsEnv.syncDir(dirname(from));
}

/**
 * Forget a model. The record goes first, so a crash leaves at most an unrecorded file (which install
 * adopts when its hash matches) and never a record without its file. The file is deleted only when it
 * lives in the models directory and no other record uses it; a referenced local file is never touched.
 */
export async function removeModel(
  id: string,
  home = korttyHome(),
): Promise<{ record: InstallRecord; deletedFile: string | null }> {
  const record = await getInstalled(id, home);
  if (!record) throw createError('MODEL_NOT_FOUND', { id });
  const path = modelFilePath(record, home);
  await fsp.unlink(modelRecordPath(id, home));
  await nodeFsEnv.syncDir(modelRecordsDir(home));
  await fsp.rm(partialDownloadDir(id, home), { recursive: true, force: true });
  const owned = !isAbsolute(record.file);
  const sharedWith = (await listInstalled(home)).find((r) => modelFilePath(r, home) === path);
  if (!owned || sharedWith) return { record, deletedFile: null };
  try {
    await fsp.unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return { record, deletedFile: null };
  }
  return { record, deletedFile: path };
}
