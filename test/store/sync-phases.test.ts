import test from 'ava';
import type { SnapshotChunk, SnapshotDoc } from '../../src/index/snapshot-types.js';
import { applyFailureMemory, isRemembered, nextFailures } from '../../src/store/failure-memory.js';
import type { FailedDoc } from '../../src/store/store-types.js';
import { planEmbedding, reusableVectors } from '../../src/store/vector-reuse.js';
import type { ModelFingerprint, Review } from '../../src/types.js';

// The pure parts of a sync: which chunks need the model, and remembered failures.

const chunk = (text: string, v = 0): SnapshotChunk => ({
  id: '0000000000000000',
  index: 0,
  text,
  tokens: 1,
  vector: v ? Float32Array.of(v, v) : new Float32Array(0),
});
const doc = (path: string, chunks: SnapshotChunk[]): SnapshotDoc => ({
  sourceId: 's',
  path,
  sha256: 'x',
  size: 1,
  format: 'text',
  chunks,
});

const fingerprint: ModelFingerprint = {
  modelId: 'm',
  fileName: 'm.gguf',
  fileSize: 1,
  fileSha256: 'ab',
  dimension: 2,
  pooling: 'mean',
  documentPrefix: 'search_document: ',
  queryPrefix: 'search_query: ',
};

test('vector reuse: known texts take their old vector wherever they are; new texts are embedded once', (t) => {
  const old = [doc('/a', [chunk('alpha', 1), chunk('beta', 2)]), doc('/b', [chunk('gamma', 3)])];
  const known = reusableVectors({ fingerprint, docs: old }, { ...fingerprint });
  const next = [chunk('gamma'), chunk('delta'), chunk('alpha'), chunk('delta'), chunk('epsilon')];
  const work = planEmbedding(next, known);
  t.is(work.reused, 2);
  t.deepEqual(work.texts, ['delta', 'epsilon']);
  t.is(work.targets[0]!.length, 2, 'a repeated new text is embedded once for both chunks');
  t.is(next[0]!.vector, old[1]!.chunks[0]!.vector, 'the very same vector (from another file)');
  t.is(next[2]!.vector, old[0]!.chunks[0]!.vector);
  t.is(next[1]!.vector.length, 0, 'new texts wait for the model');
  // Whitespace is part of the text: a chunk that differs by one space is new.
  t.is(planEmbedding([chunk('alpha ')], known).texts.length, 1);
});

test('vector reuse: only a snapshot embedded with the same fingerprint, prefixes included, offers vectors', (t) => {
  const docs = [doc('/a', [chunk('alpha', 1)])];
  t.is(reusableVectors({ fingerprint, docs }, fingerprint).size, 1);
  t.is(reusableVectors(undefined, fingerprint).size, 0);
  // The same text under another document prefix, pooling or model file is another model input.
  for (const other of [
    { documentPrefix: '' },
    { queryPrefix: 'query: ' },
    { pooling: 'cls' as const },
    { fileSha256: 'cd' },
  ]) {
    t.is(reusableVectors({ fingerprint, docs }, { ...fingerprint, ...other }).size, 0, JSON.stringify(other));
  }
});

const row = (path: string, status: 'new' | 'changed' | 'unchanged', sha256: string) => ({
  path,
  relPath: path.slice(1),
  format: 'pdf',
  size: 10,
  status,
  sha256,
});

function review(rows: ReturnType<typeof row>[]): Review {
  return {
    root: '/',
    rows,
    removed: [],
    summary: {
      visited: rows.length,
      toIndex: {
        new: rows.filter((r) => r.status === 'new').length,
        changed: rows.filter((r) => r.status === 'changed').length,
      },
      unchanged: rows.filter((r) => r.status === 'unchanged').length,
      removed: 0,
      skipped: {},
      formats: {},
      acceptedBytes: 0,
      extractedChars: 0,
    },
  };
}

test('failure memory: an unchanged failed file becomes a skipped row with the date; a changed one is tried', (t) => {
  const failed: Record<string, FailedDoc> = {
    '/slow.pdf': {
      sha256: 'h1',
      reason: 'pdf-timeout',
      explanation: 'took too long',
      failedAt: '2025-03-04T05:06:07.000Z',
    },
    '/edited.pdf': { sha256: 'old', reason: 'pdf-invalid', failedAt: '2025-03-04T05:06:07.000Z' },
  };
  const r = review([
    row('/slow.pdf', 'new', 'h1'),
    row('/edited.pdf', 'new', 'new-hash'),
    row('/ok.md', 'unchanged', 'z'),
  ]);
  const { review: out, remembered } = applyFailureMemory(r, failed);
  t.deepEqual([...remembered.keys()], ['/slow.pdf']);
  t.is(out.rows[0]!.status, 'skipped');
  t.is(out.rows[0]!.reason, 'pdf-timeout');
  t.is(out.rows[0]!.explanation, 'unchanged since it failed on 2025-03-04 05:06 UTC (took too long)');
  t.is(out.rows[1]!.status, 'new');
  t.deepEqual(out.summary.toIndex, { new: 1, changed: 0 });
  t.deepEqual(out.summary.skipped, { 'pdf-timeout': 1 });
  t.is(r.rows[0]!.status, 'new', 'the scanned review is not modified');
  t.is(applyFailureMemory(r, undefined).review, r);
});

test('failure memory: a damaged or no longer remembered record does not hide a file', (t) => {
  const r = review([row('/a.pdf', 'new', 'h'), row('/b.pdf', 'new', 'h'), row('/c.pdf', 'new', 'h')]);
  const failed = {
    '/a.pdf': { sha256: 'h', reason: 'permission-denied', failedAt: '2025-03-04T05:06:07.000Z' },
    '/b.pdf': { sha256: 'h', reason: 'pdf-timeout', failedAt: 7 },
    '/c.pdf': null,
  } as unknown as Record<string, FailedDoc>;
  const { review: out, remembered } = applyFailureMemory(r, failed);
  t.is(remembered.size, 0);
  t.deepEqual(
    out.rows.map((x) => x.status),
    ['new', 'new', 'new'],
  );
});

test('failure memory: what is recorded after a sync', (t) => {
  const kept: FailedDoc = { sha256: 'h1', reason: 'pdf-timeout', failedAt: '2025-01-01T00:00:00.000Z' };
  const now = '2025-06-01T00:00:00.000Z';
  const next = nextFailures(
    new Map([['/slow.pdf', kept]]),
    [
      { path: '/bad.docx', reason: 'docx-invalid', explanation: 'not a zip', sha256: 'h2' },
      { path: '/moving.md', reason: 'read-error', explanation: 'changed since the scan', sha256: 'h3' },
      { path: '/x.pdf', reason: 'extract-failed', explanation: 'parser could not start', sha256: 'h4' },
    ],
    now,
  );
  t.deepEqual(next, {
    '/bad.docx': { sha256: 'h2', reason: 'docx-invalid', explanation: 'not a zip', failedAt: now },
    '/slow.pdf': kept,
  });
  t.is(nextFailures(new Map(), [], now), undefined);
  t.false(isRemembered('read-error'));
  t.false(isRemembered('permission-denied'), 'a transient reason is never remembered');
  t.false(isRemembered(undefined));
  for (const r of ['pdf-timeout', 'pdf-invalid', 'pdf-encrypted', 'pdf-no-text', 'docx-invalid', 'not-utf8'])
    t.true(isRemembered(r), r);
});
