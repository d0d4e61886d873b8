import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

// node-llama-cpp defaults to max(4, host cores) threads; on a 2-core container that oversubscribes
// the CPU and makes embeddings 7-25x slower. Honour the cgroup CPU quota as well as affinity.
export function usableCores(): number {
  let cores = availableParallelism();
  const quota = readCgroupQuota();
  if (quota !== undefined) cores = Math.min(cores, Math.max(1, Math.floor(quota)));
  return Math.max(1, cores);
}

function readCgroupQuota(): number | undefined {
  try {
    // cgroup v2: "max 100000" or "200000 100000"
    const [q, p] = readFileSync('/sys/fs/cgroup/cpu.max', 'utf8').trim().split(/\s+/);
    if (q && p && q !== 'max') return Number(q) / Number(p);
  } catch {}
  try {
    const q = Number(readFileSync('/sys/fs/cgroup/cpu/cpu.cfs_quota_us', 'utf8'));
    const p = Number(readFileSync('/sys/fs/cgroup/cpu/cpu.cfs_period_us', 'utf8'));
    if (q > 0 && p > 0) return q / p;
  } catch {}
  return undefined;
}
