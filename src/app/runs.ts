import { flagStale, type RunWithStaleness } from '../ai/runs.js';
import { readRuns } from '../ai/runs-file.js';
import { runsDir } from '../storage/paths.js';
import type { StoreConfig } from '../store/store-types.js';

// Run records as the faces show them: read back (damaged lines reported, not dropped) and each
// excerpt flagged stale when its document changed or left the store since the run.

export type { RunWithStaleness, StaleExcerpt } from '../ai/runs.js';
export { runOrigin } from '../ai/runs.js';

export interface RecentRuns {
  /** Oldest first. */
  runs: RunWithStaleness[];
  damaged: Awaited<ReturnType<typeof readRuns>>['damaged'];
}

export async function recentRuns(opts: {
  last: number;
  stores: readonly StoreConfig[];
  home?: string;
}): Promise<RecentRuns> {
  const { records, damaged } = await readRuns({
    last: opts.last,
    ...(opts.home !== undefined ? { dir: runsDir(opts.home) } : {}),
  });
  const hashOf = new Map<string, string>();
  for (const s of opts.stores)
    for (const src of s.sources)
      for (const [p, h] of Object.entries(src.hashes)) hashOf.set(`${s.id}\0${src.id}\0${p}`, h);
  const runs = records.map((r) => flagStale(r, (e) => hashOf.get(`${e.storeId}\0${e.sourceId}\0${e.path}`)));
  return { runs, damaged };
}
