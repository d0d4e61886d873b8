import { EMBED_BATCH } from '../embed/batch.js';
import { createError, isKorttyError } from '../errors.js';
import type { SnapshotChunk, SnapshotDoc } from '../index/snapshot-types.js';
import { chunkId } from '../index/snapshot-types.js';
import { killPoint } from '../util/kill-points.js';
import type { DocProblem, SourceOutcome, SyncJob } from './sync-job.js';
import { docKey } from './sync-job.js';
import { planEmbedding, reusableVectors } from './vector-reuse.js';

// Phases: extract and chunk the new and changed documents, then give each chunk a vector: the
// old one where its text is already in the snapshot, else a new one from the model.

export interface BuiltDocs {
  /** Re-chunked documents by docKey; their chunks get vectors in `embedChunks`. */
  docs: Map<string, SnapshotDoc>;
  /** Documents that were skipped, by source id. */
  problems: Map<string, DocProblem[]>;
}

export async function extractAndChunk(job: SyncJob, outcomes: readonly SourceOutcome[]): Promise<BuiltDocs> {
  const { req, cfg } = job;
  const toBuild = outcomes.flatMap((o) => (o.plan ? o.plan.embed.map((d) => ({ o, d })) : []));
  const out: BuiltDocs = { docs: new Map(), problems: new Map() };
  let chunks = 0;
  let done = 0;
  job.progress.set({ state: 'extracting', documentsTotal: toBuild.length });
  for (const { o, d } of toBuild) {
    job.check();
    const sourceId = o.source.id;
    try {
      const extracted = await req.ports.extract(d.path, d.format, req.signal, d.sha256, d.scanned);
      // HTML/.docx line numbers count extracted text, not the file: a `file:line` citation
      // would point at the wrong place, so such chunks carry no line range.
      const keepLines = !(extracted.kind === 'lines' && extracted.sourceLines === false);
      const doc: SnapshotDoc = {
        sourceId,
        path: d.path,
        sha256: d.sha256,
        size: d.size,
        format: d.format,
        chunks: req.ports.chunk(extracted, cfg.chunk).map(
          (c): SnapshotChunk => ({
            id: chunkId(cfg.id, sourceId, d.path, c.index, c.text),
            index: c.index,
            text: c.text,
            tokens: c.tokens,
            lineStart: keepLines ? c.lineStart : undefined,
            lineEnd: keepLines ? c.lineEnd : undefined,
            pageStart: c.pageStart,
            pageEnd: c.pageEnd,
            vector: new Float32Array(0),
          }),
        ),
      };
      chunks += doc.chunks.length;
      out.docs.set(docKey(sourceId, d.path), doc);
    } catch (err) {
      if (req.signal?.aborted || isKorttyError(err, 'EXTRACT_CANCELLED')) throw createError('JOB_CANCELLED');
      // Whatever one document does to extraction or chunking is that document's problem: it is
      // skipped with the reason, and the job goes on with the others.
      const list = out.problems.get(sourceId) ?? [];
      list.push({ ...documentProblem(d.path, err), sha256: d.sha256 });
      out.problems.set(sourceId, list);
    }
    done++;
    job.progress.set({
      documents: done,
      chunks,
      percent: 5 + Math.round((25 * done) / Math.max(1, toBuild.length)),
    });
  }
  return out;
}

export interface Embedding {
  /** Texts sent to the model. */
  embedded: number;
  /** Per source: chunks of its re-chunked documents that got a new vector. */
  embeddedBySource: Map<string, number>;
}

export async function embedChunks(job: SyncJob, built: BuiltDocs): Promise<Embedding> {
  const { req, cfg } = job;
  const docs = [...built.docs.values()];
  const known = req.reuseChunks === false ? new Map() : reusableVectors(job.old, cfg.fingerprint);
  const work = planEmbedding(
    docs.flatMap((d) => d.chunks),
    known,
  );
  const embeddedBySource = new Map<string, number>();
  const firstOwner = new Map<SnapshotChunk, string>();
  for (const d of docs) for (const c of d.chunks) if (!firstOwner.has(c)) firstOwner.set(c, d.sourceId);
  for (const targets of work.targets) {
    const owner = firstOwner.get(targets[0] as SnapshotChunk) as string;
    embeddedBySource.set(owner, (embeddedBySource.get(owner) ?? 0) + 1);
  }
  if (work.texts.length === 0) return { embedded: 0, embeddedBySource };
  // The model is loaded only when some text is new.
  job.embedder = await req.ports.openEmbedder(cfg.fingerprint, cfg.modelId);
  if (job.embedder.dimension !== cfg.fingerprint.dimension) {
    throw createError('MODEL_DIMENSION_MISMATCH', {
      model: cfg.modelId,
      got: job.embedder.dimension,
      want: cfg.fingerprint.dimension,
      store: cfg.name,
    });
  }
  job.progress.set({ state: 'embedding' });
  let embedded = 0;
  for (let i = 0; i < work.texts.length; i += EMBED_BATCH) {
    job.check();
    const vectors = await job.embedder.embedDocuments(work.texts.slice(i, i + EMBED_BATCH), {
      signal: req.signal,
    });
    vectors.forEach((v, j) => {
      for (const c of work.targets[i + j] as SnapshotChunk[]) c.vector = v;
    });
    embedded += vectors.length;
    if (i === 0) killPoint('mid-embedding');
    job.progress.set({ percent: 30 + Math.round((60 * embedded) / work.texts.length) });
  }
  return { embedded, embeddedBySource };
}

function documentProblem(path: string, err: unknown): { path: string; reason: string; explanation?: string } {
  if (isKorttyError(err, 'EXTRACT_FAILED'))
    return { path, reason: String(err.details.skipReason ?? 'extract-failed'), explanation: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return {
    path,
    reason: isKorttyError(err, 'CHUNK_FAILED') ? 'chunk-failed' : 'extract-failed',
    explanation: message.includes(path) ? message : `${path}: ${message}`,
  };
}
