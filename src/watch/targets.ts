import type { StoreConfig } from '../store/store-types.js';
import type { SourceOptions } from '../types.js';

// Pure: which sources the watcher watches, and what changed when store.json files change.
// Only enabled sources in automatic mode are watched; Qdrant stores are included (their sync goes
// through the same engine entry). A target's key covers everything that changes how it is
// watched, so editing options (globs, .gitignore) restarts its watcher; status fields do not.

export interface WatchTarget {
  storeId: string;
  storeName: string;
  sourceId: string;
  path: string;
  kind: 'file' | 'folder';
  options: SourceOptions;
  /** What store.json currently says (the watcher sets and clears it). */
  limitedMonitoring?: string;
}

export function watchTargets(stores: readonly StoreConfig[]): WatchTarget[] {
  const out: WatchTarget[] = [];
  for (const s of stores) {
    for (const src of s.sources) {
      if (!src.enabled || src.sync !== 'automatic') continue;
      out.push({
        storeId: s.id,
        storeName: s.name,
        sourceId: src.id,
        path: src.path,
        kind: src.kind,
        options: src.options,
        ...(src.limitedMonitoring ? { limitedMonitoring: src.limitedMonitoring } : {}),
      });
    }
  }
  return out.sort((a, b) => cmp(targetId(a), targetId(b)));
}

/** Identity of a watched source across reloads (a source id is unique within its store only). */
export function targetId(t: Pick<WatchTarget, 'storeId' | 'sourceId'>): string {
  return `${t.storeId}/${t.sourceId}`;
}

/** Everything that requires restarting the source's file watcher when it changes. */
export function targetKey(t: WatchTarget): string {
  return JSON.stringify([t.storeId, t.sourceId, t.path, t.kind, t.options]);
}

export interface TargetDiff {
  added: WatchTarget[];
  removed: WatchTarget[];
  /** Same source, different watch-relevant settings (the new target). */
  changed: WatchTarget[];
  /** Same watch settings; carries fresh status fields. */
  kept: WatchTarget[];
}

export function diffTargets(prev: readonly WatchTarget[], next: readonly WatchTarget[]): TargetDiff {
  const before = new Map(prev.map((t) => [targetId(t), t]));
  const diff: TargetDiff = { added: [], removed: [], changed: [], kept: [] };
  for (const t of next) {
    const old = before.get(targetId(t));
    before.delete(targetId(t));
    if (!old) diff.added.push(t);
    else if (targetKey(old) !== targetKey(t)) diff.changed.push(t);
    else diff.kept.push(t);
  }
  diff.removed = [...before.values()];
  return diff;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
