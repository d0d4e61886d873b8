import * as fsp from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createError, isKorttyError, type KorttyError } from '../errors.js';
import { errReason } from '../storage/atomic-write.js';
import { acquireLock, type StoreLock } from '../storage/lock.js';
import { korttyHome, modelsDir, TEMP_PREFIX } from '../storage/paths.js';
import { PRIVATE_DIR_MODE } from '../storage/private-files.js';
import { type CatalogModel, catalogEntry, huggingFaceUrl } from './catalog.js';
import { sha256File } from './fingerprint.js';
import {
  checkGgufHeader,
  getInstalled,
  ggufHeaderProblem,
  type InstallRecord,
  isValidModelId,
  type ModelSource,
  modelFilePath,
  partialDownloadDir,
  placeWithoutOverwrite,
  registerModelFile,
  verifyInstalled,
} from './model-registry.js';

// Installs a model: ipull (the downloader node-llama-cpp uses) fetches into a per-model staging directory
// (`models/.partial/<id>/`), where an interrupted or cancelled download stays resumable; the complete
// file is fsynced, checked (GGUF header, sha256 against the catalog's pin when there is one), linked
// into `models/` without ever replacing an existing file, and only then recorded. A probe request runs
// first because ipull retries unreachable hosts and 5xx answers for minutes: a dead URL, an HTTP error,
// a non-GGUF body or a size that contradicts the catalog is reported at once.

export interface InstallProgress {
  /** `download`: bytes fetched (resumed bytes included); `verify`: bytes hashed. */
  phase: 'download' | 'verify';
  bytes: number;
  total: number;
  /** 0..100, one decimal; 0 while the total is unknown. */
  percent: number;
}

export interface InstallOptions {
  /** Download from here instead of the catalog URL (a mirror); required for ids outside the catalog. */
  url?: string;
  /** File name for a non-catalog model (default: the URL's last path segment). */
  fileName?: string;
  /** Expected sha256 for a non-catalog model; catalog models always use their pinned digest. */
  sha256?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  onProgress?: (p: InstallProgress) => void;
  /** Builds a `generated` catalog model (the lexical starter) at the given path. */
  generate?: (destPath: string) => Promise<void>;
  home?: string;
}

export interface InstallResult {
  record: InstallRecord;
  path: string;
  /** `adopted`: an unrecorded file with the pinned digest was already in place and is now recorded. */
  status: 'installed' | 'already-installed' | 'adopted';
  /** A partial download from an earlier run was continued. */
  resumed: boolean;
}

const FILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

export interface InstallPlan {
  id: string;
  entry?: CatalogModel;
  source: ModelSource;
  url?: string;
  fileName: string;
  expectedSha256?: string;
  expectedSize?: number;
}

export async function installModel(id: string, opts: InstallOptions = {}): Promise<InstallResult> {
  const home = opts.home ?? korttyHome();
  const plan = planInstall(id, opts);
  const dest = join(modelsDir(home), plan.fileName);
  const staging = partialDownloadDir(id, home);
  const lock = await acquireInstallLock(id, home);
  try {
    // Under the lock: another install removes an empty staging directory when it ends.
    await fsp.mkdir(staging, { recursive: true, mode: PRIVATE_DIR_MODE });
    const early = await checkExisting(plan, dest, home);
    if (early) return early;
    const staged = join(staging, plan.fileName);
    let resumed = false;
    if (plan.entry?.kind === 'generated') {
      if (!opts.generate)
        throw createError('INVALID_ARGUMENT', {
          name: 'id',
          reason: `"${id}" is generated on this computer, not downloaded`,
        });
      await fsp.rm(staged, { force: true });
      await opts.generate(staged);
      if (opts.signal?.aborted) throw createError('DOWNLOAD_CANCELLED');
    } else {
      resumed = await download(plan, staging, staged, opts);
    }
    const sha256 = await checkStaged(plan, staged, opts);
    let status: InstallResult['status'] = 'installed';
    if (await exists(dest)) {
      // Only a generated model gets here with a file in place (its bytes are known only now), or a
      // file appeared during the download: the same bytes are adopted, different ones left alone.
      await fsp.rm(staged, { force: true });
      if ((await sha256File(dest)) !== sha256) throw occupied(plan, dest);
      status = 'adopted';
    } else {
      await assertStillHeld(lock, id);
      await placeWithoutOverwrite(staged, dest);
    }
    const record = await registerModelFile(dest, { id, source: plan.source, url: plan.url, sha256, home });
    await fsp.rm(staging, { recursive: true, force: true });
    return { record, path: dest, status, resumed };
  } finally {
    await fsp.rmdir(staging).catch(() => {}); // only when empty: a partial download stays
    await lock.release();
  }
}

/** Resolve what to fetch and what to expect. Pure apart from reading the catalog. */
export function planInstall(
  id: string,
  opts: Pick<InstallOptions, 'url' | 'fileName' | 'sha256'> = {},
): InstallPlan {
  const entry = catalogEntry(id);
  if (!isValidModelId(id) || id.startsWith('local:'))
    throw createError('INVALID_ARGUMENT', { name: 'id', reason: `"${id}" is not a valid model id` });
  const url = opts.url === undefined ? entry?.url : toDownloadUrl(opts.url);
  if (!entry && !url)
    throw createError('INVALID_ARGUMENT', {
      name: 'id',
      reason: `"${id}" is not in the catalog; give --url to download it`,
    });
  if (opts.sha256 !== undefined && !/^[0-9a-f]{64}$/.test(opts.sha256))
    throw createError('INVALID_ARGUMENT', { name: 'sha256', reason: 'expected 64 lowercase hex digits' });
  if (entry) {
    return {
      id,
      entry,
      source: entry.kind === 'generated' ? 'generated' : 'catalog',
      url,
      fileName: entry.fileName,
      expectedSha256: entry.sha256,
      expectedSize: entry.sizeExact ? entry.sizeBytes : undefined,
    };
  }
  let fileName = opts.fileName ?? decodeURIComponent(basename(new URL(url!).pathname));
  if (!/\.gguf$/i.test(fileName)) fileName = `${fileName}.gguf`;
  if (!FILE_NAME_RE.test(fileName) || fileName.startsWith(TEMP_PREFIX)) fileName = `${id}.gguf`;
  return { id, source: 'url', url, fileName, expectedSha256: opts.sha256 };
}

/** http(s) URLs as they are; `hf:<user>/<repo>/<file>[#revision]` resolved offline like node-llama-cpp does. */
export function toDownloadUrl(uri: string): string {
  const hf = /^hf:([^/\s]+\/[^/\s]+)\/([^#\s]+\.gguf)(?:#(\S+))?$/.exec(uri);
  if (hf) return huggingFaceUrl(hf[1]!, hf[2]!, hf[3] ?? 'main');
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    throw createError('INVALID_ARGUMENT', { name: 'url', reason: `"${uri}" is not a URL` });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw createError('INVALID_ARGUMENT', {
      name: 'url',
      reason: `${parsed.protocol} is not supported; use https://, http:// or hf:<user>/<repo>/<file>.gguf`,
    });
  return parsed.href;
}

/** Already installed, adoptable, or in the way: decided before any byte is downloaded. */
async function checkExisting(
  plan: InstallPlan,
  dest: string,
  home: string,
): Promise<InstallResult | undefined> {
  const record = await getInstalled(plan.id, home);
  if (record) {
    try {
      const v = await verifyInstalled(plan.id, { home });
      if (plan.expectedSha256 && v.record.sha256 !== plan.expectedSha256)
        throw createError('MODEL_EXISTS', {
          path: v.path,
          reason: `installed "${plan.id}" differs from the catalog's pinned file; remove it first (kortty-rag models remove ${plan.id})`,
        });
      return { record: v.record, path: v.path, status: 'already-installed', resumed: false };
    } catch (err) {
      if (isKorttyError(err, 'MODEL_CHANGED'))
        throw createError('MODEL_EXISTS', {
          path: modelFilePath(record, home),
          reason: `changed since "${plan.id}" was installed and is not replaced silently; remove it first (kortty-rag models remove ${plan.id})`,
        });
      // A recorded model whose file is gone is simply installed again.
      if (!isKorttyError(err, 'MODEL_FILE_MISSING')) throw err;
    }
  }
  if (!(await exists(dest))) return undefined;
  if (plan.expectedSha256 && (await sha256File(dest)) === plan.expectedSha256) {
    const adopted = await registerModelFile(dest, {
      id: plan.id,
      source: plan.source,
      url: plan.url,
      sha256: plan.expectedSha256,
      home,
    });
    return { record: adopted, path: dest, status: 'adopted', resumed: false };
  }
  // A generated model is deterministic: build it, then compare (no bandwidth is at stake).
  if (plan.entry?.kind === 'generated') return undefined;
  throw occupied(plan, dest);
}

function occupied(plan: InstallPlan, dest: string): KorttyError {
  return createError('MODEL_EXISTS', {
    path: dest,
    reason: `a file with this name is already in the models directory and is not a recorded install of "${plan.id}"; move it away or use \`kortty-rag models add\``,
  });
}

async function download(
  plan: InstallPlan,
  staging: string,
  staged: string,
  opts: InstallOptions,
): Promise<boolean> {
  const url = plan.url!;
  const signal = opts.signal;
  // A complete file from a run stopped during verification: with a pinned digest, checking it is enough.
  if (plan.expectedSha256 && (await exists(staged))) return true;
  const probe = await probeUrl(url, opts.headers, signal);
  if (plan.expectedSize !== undefined && probe.total !== undefined && probe.total !== plan.expectedSize)
    throw createError('DOWNLOAD_FAILED', {
      url,
      reason: `the server offers ${probe.total} bytes but the catalog's file has ${plan.expectedSize}`,
    });
  const partial = `${staged}.ipull`;
  const resumed = await exists(partial);
  // Without a pin, a complete file left by an earlier run cannot be trusted; fetch again.
  await fsp.rm(staged, { force: true });
  const total = probe.total ?? plan.expectedSize;
  if (total !== undefined) await checkDiskSpace(staging, total - (await allocatedBytes(partial)), url);

  const { downloadFile } = await import('ipull');
  const emit = (bytes: number, size: number) =>
    opts.onProgress?.(installProgress('download', bytes, size || total || 0));
  let downloader: Awaited<ReturnType<typeof downloadFile>>;
  try {
    downloader = await downloadFile({
      url,
      savePath: staged,
      headers: opts.headers,
      skipExisting: false,
      parallelStreams: PARALLEL_STREAMS,
      // The probe already knows the size and whether ranges work. Without this, ipull asks with a GET
      // of the whole file whose body it never reads: the server fills the socket buffers (4 MiB and
      // more on loopback here) on every start and resume, and the connection stays open.
      ...(probe.total === undefined
        ? {}
        : { defaultFetchDownloadInfo: { length: probe.total, acceptRange: probe.ranges } }),
    });
  } catch (err) {
    throw downloadError(err, url, signal);
  }
  downloader.on('progress', (s) => emit(s.transferredBytes, s.totalBytes));
  // A cancel closes the engine; the partial file and its resume state stay for the next run.
  let closing: Promise<void> | undefined;
  const onAbort = () => {
    closing ??= downloader.close();
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (!closing) await downloader.download();
  } catch (err) {
    throw downloadError(err, url, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  // ipull resolves normally when it is closed by a cancel.
  if (signal?.aborted) {
    await closing;
    await settledPartial(partial, total);
    throw createError('DOWNLOAD_CANCELLED');
  }
  const st = await fsp.stat(staged).catch(() => undefined);
  if (!st)
    throw createError('DOWNLOAD_FAILED', {
      url,
      reason: 'the downloader finished without producing the file',
    });
  if (total !== undefined && st.size > total) {
    // ipull keeps its resume state as JSON after the file's last byte and truncates it away when done;
    // a progress save racing with that truncation can leave the JSON behind. Bytes past the size the
    // server announced are never file content (and the sha256 check below still applies).
    await fsp.truncate(staged, total);
  } else if (total !== undefined && st.size < total) {
    await fsp.rm(staged, { force: true });
    throw createError('DOWNLOAD_FAILED', { url, reason: `received ${st.size} bytes, expected ${total}` });
  }
  emit(total ?? st.size, total ?? st.size);
  return resumed;
}

// ipull saves its resume state (JSON after the file's last byte) when a chunk completes, without
// waiting for the save. A cancel that closes the file while a save or a chunk's write is in flight
// makes it retry into a reopened file a second or two later (async-retry's first delay is 1–2 s):
// a next run started at once found no state and fetched the whole file again. So a cancel returns
// once the partial file holds the state, or has not changed for longer than that delay; the
// install lock covers the late write.
const PARTIAL_QUIET_MS = 2500;
const PARTIAL_POLL_MS = 50;
/** ipull's default for Node: three ranged streams over 5 MiB chunks. */
const PARALLEL_STREAMS = 3;

async function settledPartial(partial: string, total: number | undefined): Promise<void> {
  let last = '';
  let since = Date.now();
  for (;;) {
    const st = await fsp.stat(partial).catch(() => undefined);
    if (st && total !== undefined && st.size > total) return;
    const now = `${st?.size ?? -1}:${st?.mtimeMs ?? 0}`;
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= PARTIAL_QUIET_MS) return;
    await new Promise((resolve) => setTimeout(resolve, PARTIAL_POLL_MS));
  }
}

/**
 * fsync, GGUF header and sha256 of the complete staged file. A file that fails is deleted; a cancel
 * during hashing (minutes for the 8B model on slow disks) keeps it for the next run.
 */
async function checkStaged(plan: InstallPlan, staged: string, opts: InstallOptions): Promise<string> {
  try {
    const fh = await fsp.open(staged, 'r+');
    await fh.sync().finally(() => fh.close());
    await checkGgufHeader(staged);
    const size = (await fsp.stat(staged)).size;
    const sha256 = await sha256File(staged, (n) => {
      if (opts.signal?.aborted) throw createError('DOWNLOAD_CANCELLED');
      opts.onProgress?.(installProgress('verify', n, size));
    });
    if (plan.expectedSha256 && sha256 !== plan.expectedSha256)
      throw createError('DOWNLOAD_HASH_MISMATCH', {
        url: plan.url ?? staged,
        want: plan.expectedSha256,
        got: sha256,
      });
    return sha256;
  } catch (err) {
    if (!isKorttyError(err, 'DOWNLOAD_CANCELLED')) await fsp.rm(staged, { force: true });
    throw err;
  }
}

interface Probe {
  total?: number;
  /** The server answered the ranged probe with 206: parallel streams and resume work. */
  ranges: boolean;
}

/** One small ranged GET: reachability, HTTP status, GGUF header and total size, before ipull starts. */
export async function probeUrl(
  url: string,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Probe> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { ...headers, range: 'bytes=0-23', 'accept-encoding': 'identity' },
      signal,
    });
  } catch (err) {
    throw downloadError(err, url, signal);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw createError('DOWNLOAD_FAILED', {
      url,
      status: res.status,
      reason: `HTTP ${res.status} ${res.statusText}`.trim(),
    });
  }
  const head = await readPrefix(res, 24).catch((err) => {
    throw downloadError(err, url, signal);
  });
  const problem = ggufHeaderProblem(head);
  if (problem) throw createError('MODEL_INVALID', { path: url, reason: problem });
  const range = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '');
  const length = Number(res.headers.get('content-length'));
  if (res.status === 206 && range) return { total: Number(range[1]), ranges: true };
  if (res.status === 200 && Number.isSafeInteger(length) && length > 0)
    return { total: length, ranges: false };
  return { ranges: false };
}

async function readPrefix(res: Response, n: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const parts: Buffer[] = [];
  let got = 0;
  try {
    while (got < n) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(Buffer.from(value));
      got += value.length;
    }
  } finally {
    // A server that ignores Range sends the whole file; stop reading it here.
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(parts).subarray(0, n);
}

function downloadError(err: unknown, url: string, signal?: AbortSignal): KorttyError {
  if (signal?.aborted) return createError('DOWNLOAD_CANCELLED', {}, err);
  if (isKorttyError(err)) return err;
  const e = err as { statusCode?: number; statusText?: string; cause?: unknown };
  if (typeof e?.statusCode === 'number')
    return createError(
      'DOWNLOAD_FAILED',
      { url, status: e.statusCode, reason: `HTTP ${e.statusCode} ${e.statusText ?? ''}`.trim() },
      err,
    );
  // fetch() wraps the socket error ("fetch failed") in `cause`; the cause is the useful part.
  return createError('DOWNLOAD_FAILED', { url, reason: errReason(e?.cause ?? err) }, err);
}

export function installProgress(
  phase: InstallProgress['phase'],
  bytes: number,
  total: number,
): InstallProgress {
  return {
    phase,
    bytes,
    total,
    percent: total > 0 ? Math.min(100, Math.floor((bytes / total) * 1000) / 10) : 0,
  };
}

async function checkDiskSpace(dir: string, need: number, url: string): Promise<void> {
  const fs = await fsp.statfs(dir).catch(() => undefined);
  if (!fs) return;
  const free = fs.bavail * fs.bsize;
  if (free < need)
    throw createError('DOWNLOAD_FAILED', {
      url,
      reason: `not enough free disk space in ${dir}: ${need} bytes needed, ${free} available`,
    });
}

async function allocatedBytes(path: string): Promise<number> {
  const st = await fsp.stat(path).catch(() => undefined);
  return st ? st.blocks * 512 : 0;
}

async function exists(path: string): Promise<boolean> {
  return fsp.lstat(path).then(
    () => true,
    () => false,
  );
}

/** A holder that stalled past the stale bound may have been replaced: it must not place the file. */
async function assertStillHeld(lock: StoreLock, id: string): Promise<void> {
  try {
    await lock.assertHeld();
  } catch (err) {
    if (isKorttyError(err, 'STORE_BUSY'))
      throw createError('MODEL_BUSY', { id, pid: err.details.pid ?? '?' });
    throw err;
  }
}

/** Longer than the store lock's: generating the starter model keeps this process busy for seconds. */
export const INSTALL_LOCK_STALE_MS = 60_000;

/**
 * One install of a model at a time, across processes, with the store lock's scheme
 * (src/storage/lock.ts): a directory renamed into place complete with its owner, a heartbeat,
 * takeover of a dead or silent owner serialised by a guard, and release only of our own lock.
 */
export async function acquireInstallLock(id: string, home = korttyHome()): Promise<StoreLock> {
  const staging = partialDownloadDir(id, home);
  await fsp.mkdir(dirname(staging), { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    return await acquireLock(`${staging}${INSTALL_LOCK_SUFFIX}`, id, {
      job: 'install',
      staleMs: INSTALL_LOCK_STALE_MS,
    });
  } catch (err) {
    if (isKorttyError(err, 'STORE_BUSY'))
      throw createError('MODEL_BUSY', { id, pid: err.details.pid ?? '?' });
    throw err;
  }
}

/** Next to the staging directory; not `.lock`, which older versions used for a lock file. */
const INSTALL_LOCK_SUFFIX = '.install-lock';
