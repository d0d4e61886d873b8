import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createError } from '../errors.js';
import { errReason } from '../storage/atomic-write.js';
import type { ModelFingerprint } from '../types.js';
import { type ModelInfo, readModelInfo } from './model-info.js';

// A fingerprint ties an index to one embedding configuration: the model file's identity
// (name, size, sha256), the vectors' dimension and pooling, and the prompt prefixes. Two
// configurations produce comparable vectors only when every one of these matches.

export interface FingerprintInput {
  modelPath: string;
  /** Catalog id; default `local:<file name>`. */
  modelId?: string;
  /** Known sha256 (e.g. from the install record); computed from the file when absent. */
  sha256?: string;
  /** Facts already read from the header. */
  info?: Pick<ModelInfo, 'dimension' | 'pooling' | 'fileSize'>;
  documentPrefix?: string;
  queryPrefix?: string;
}

export async function computeFingerprint(input: FingerprintInput): Promise<ModelFingerprint> {
  const info = input.info ?? (await readModelInfo(input.modelPath));
  const fileName = basename(input.modelPath);
  return {
    modelId: input.modelId ?? `local:${fileName}`,
    fileName,
    fileSize: info.fileSize,
    fileSha256: input.sha256 ?? (await sha256File(input.modelPath)),
    dimension: info.dimension,
    pooling: info.pooling,
    documentPrefix: input.documentPrefix ?? '',
    queryPrefix: input.queryPrefix ?? '',
  };
}

const FIELDS = [
  'fileName',
  'fileSize',
  'fileSha256',
  'dimension',
  'pooling',
  'documentPrefix',
  'queryPrefix',
] as const;

/** Fields in which two fingerprints differ (the catalog id is a label, not part of identity). */
export function fingerprintDiff(a: ModelFingerprint, b: ModelFingerprint): (typeof FIELDS)[number][] {
  return FIELDS.filter((f) => a[f] !== b[f]);
}

export const sameFingerprint = (a: ModelFingerprint, b: ModelFingerprint) =>
  fingerprintDiff(a, b).length === 0;

/** One line for error messages and `store show`. */
export function describeFingerprint(fp: ModelFingerprint): string {
  const mb = (fp.fileSize / 1e6).toFixed(1);
  const parts = [
    `${fp.modelId === `local:${fp.fileName}` ? fp.fileName : `${fp.modelId} (${fp.fileName})`}`,
    `${mb} MB`,
    `sha256 ${fp.fileSha256.slice(0, 12)}`,
    `${fp.dimension}-d`,
    `${fp.pooling} pooling`,
  ];
  if (fp.documentPrefix) parts.push(`document prefix ${JSON.stringify(fp.documentPrefix)}`);
  if (fp.queryPrefix) parts.push(`query prefix ${JSON.stringify(fp.queryPrefix)}`);
  return parts.join(', ');
}

/**
 * Streaming sha256 of a file (OpenSSL through node:crypto). `onBytes` receives the running count
 * and may throw to stop hashing (a cancel); its error reaches the caller unchanged. A read error
 * is IO_FAILED naming the file.
 */
export async function sha256File(path: string, onBytes?: (hashed: number) => void): Promise<string> {
  const hash = createHash('sha256');
  let n = 0;
  let stopped: { err: unknown } | undefined;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      n += chunk.length;
      try {
        onBytes?.(n);
      } catch (err) {
        stopped = { err };
        break;
      }
    }
  } catch (err) {
    throw createError('IO_FAILED', { path, op: 'read', reason: errReason(err) }, err);
  }
  if (stopped) throw stopped.err;
  return hash.digest('hex');
}
