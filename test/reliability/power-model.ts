import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import type { FsOp } from '../helpers/fault-env.js';

// What a power cut can leave on disk after any prefix of a recorded operation log. Pure.
//
// The model is the POSIX one the crash argument in src/index/STORAGE.md relies on, taken
// conservatively (no ordering between un-fsynced operations, which real file systems only
// partly give):
//   - file data is durable only up to the last successful fsync of that file; what was written
//     after it may be lost, zeroed, garbled or torn (part kept);
//   - a directory entry change (create, mkdir, rename, unlink) is durable only once its
//     directory was fsynced afterwards; before that ANY subset of the pending changes may have
//     reached the disk (closed under "an entry must exist before it is renamed or removed");
//   - an entry whose directory is itself not durable is unreachable;
//   - a fsync that failed or was turned into a no-op made nothing durable.

export type DataMode = 'keep' | 'drop' | 'zero' | 'garble' | 'torn';
export const DATA_MODES: readonly DataMode[] = ['keep', 'drop', 'zero', 'garble', 'torn'];

interface Inode {
  synced: Buffer;
  cur: Buffer;
}

type Entry = { dir: true } | { dir: false; ino: number };

type DirOp =
  | { kind: 'create'; path: string; ino: number }
  | { kind: 'mkdir'; path: string }
  | { kind: 'rename'; path: string; to: string }
  | { kind: 'unlink'; path: string };

export interface ModelState {
  inodes: Inode[];
  durable: Map<string, Entry>;
  volatile: Map<string, Entry>;
  pending: DirOp[];
}

/** Initial durable state: `files` (absolute path → bytes) and `dirs` (absolute paths). */
export function initialState(files: Map<string, Buffer>, dirs: Iterable<string>): ModelState {
  const inodes: Inode[] = [];
  const durable = new Map<string, Entry>();
  for (const d of dirs) durable.set(d, { dir: true });
  for (const [p, bytes] of files) {
    inodes.push({ synced: bytes, cur: bytes });
    durable.set(p, { dir: false, ino: inodes.length - 1 });
  }
  return { inodes, durable, volatile: new Map(durable), pending: [] };
}

/** Apply one logged operation (failed and dropped fsyncs have no durable effect). */
export function applyOp(s: ModelState, op: FsOp, handles: Map<string, number>): void {
  switch (op.kind) {
    case 'create': {
      if (op.error) return;
      s.inodes.push({ synced: Buffer.alloc(0), cur: Buffer.alloc(0) });
      const ino = s.inodes.length - 1;
      handles.set(op.path, ino);
      s.volatile.set(op.path, { dir: false, ino });
      s.pending.push({ kind: 'create', path: op.path, ino });
      return;
    }
    case 'write': {
      const ino = handles.get(op.path);
      // Bytes of a partial write reached the page cache too.
      if (ino !== undefined && op.data && op.data.length > 0) {
        const n = s.inodes[ino]!;
        n.cur = Buffer.concat([n.cur, op.data]);
      }
      return;
    }
    case 'sync': {
      if (op.error || op.dropped) return;
      const ino = handles.get(op.path);
      if (ino !== undefined) s.inodes[ino]!.synced = s.inodes[ino]!.cur;
      return;
    }
    case 'mkdir': {
      if (op.error) return;
      s.volatile.set(op.path, { dir: true });
      s.pending.push({ kind: 'mkdir', path: op.path });
      return;
    }
    case 'rename': {
      if (op.error || !op.to) return;
      const e = s.volatile.get(op.path);
      if (!e) return;
      s.volatile.delete(op.path);
      s.volatile.set(op.to, e);
      s.pending.push({ kind: 'rename', path: op.path, to: op.to });
      return;
    }
    case 'unlink': {
      if (op.error) return;
      s.volatile.delete(op.path);
      s.pending.push({ kind: 'unlink', path: op.path });
      return;
    }
    case 'syncDir': {
      if (op.error || op.dropped) return;
      const dir = op.path.replace(/\/+$/, '');
      const keep: DirOp[] = [];
      for (const p of s.pending) {
        if (parentsOf(p).includes(dir)) applyDirOp(s.durable, p);
        else keep.push(p);
      }
      s.pending = keep;
      return;
    }
    default:
      return;
  }
}

function parentsOf(op: DirOp): string[] {
  return op.kind === 'rename' ? [dirname(op.path), dirname(op.to)] : [dirname(op.path)];
}

function applyDirOp(entries: Map<string, Entry>, op: DirOp): void {
  switch (op.kind) {
    case 'create':
      entries.set(op.path, { dir: false, ino: op.ino });
      return;
    case 'mkdir':
      entries.set(op.path, { dir: true });
      return;
    case 'rename': {
      const e = entries.get(op.path);
      if (!e) return;
      entries.delete(op.path);
      entries.set(op.to, e);
      return;
    }
    case 'unlink':
      entries.delete(op.path);
      return;
  }
}

/**
 * Subsets of the pending directory changes that may have reached the disk: every subset when
 * there are few, otherwise every prefix and every single change. Each is closed under
 * dependencies (the change that made a name exist comes with any later change of that name).
 */
export function pendingSubsets(pending: readonly DirOp[], maxExhaustive = 6): number[][] {
  const n = pending.length;
  const raw: number[][] = [];
  if (n <= maxExhaustive) {
    for (let mask = 0; mask < 1 << n; mask++) {
      const s: number[] = [];
      for (let i = 0; i < n; i++) if (mask & (1 << i)) s.push(i);
      raw.push(s);
    }
  } else {
    for (let k = 0; k <= n; k++) raw.push([...Array(k).keys()]);
    for (let i = 0; i < n; i++) raw.push([i]);
  }
  const seen = new Set<string>();
  const out: number[][] = [];
  for (const s of raw) {
    const closed = closeDeps(pending, s);
    const key = closed.join(',');
    if (!seen.has(key)) {
      seen.add(key);
      out.push(closed);
    }
  }
  return out;
}

function closeDeps(pending: readonly DirOp[], chosen: number[]): number[] {
  const set = new Set(chosen);
  let grew = true;
  while (grew) {
    grew = false;
    for (const i of [...set]) {
      const op = pending[i]!;
      if (op.kind !== 'rename' && op.kind !== 'unlink') continue;
      // the most recent earlier change that produced this name
      for (let j = i - 1; j >= 0; j--) {
        const p = pending[j]!;
        const produced = p.kind === 'rename' ? p.to : p.kind === 'unlink' ? undefined : p.path;
        if (produced === op.path) {
          if (!set.has(j)) {
            set.add(j);
            grew = true;
          }
          break;
        }
      }
    }
  }
  return [...set].sort((a, b) => a - b);
}

/** Deterministic pseudo-random bytes for "garbled" data. */
function garbage(n: number, seed: string): Buffer {
  const out = Buffer.alloc(n);
  let off = 0;
  let block = createHash('sha256').update(seed).digest();
  while (off < n) {
    off += block.copy(out, off);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

function contentFor(n: Inode, mode: DataMode, seed: string): Buffer {
  if (n.synced.equals(n.cur)) return n.cur;
  // Appends only: the unsynced part is what follows the synced prefix.
  const extends_ = n.cur.length >= n.synced.length && n.cur.subarray(0, n.synced.length).equals(n.synced);
  const base = extends_ ? n.synced : Buffer.alloc(0);
  const tail = n.cur.length - base.length;
  switch (mode) {
    case 'keep':
      return n.cur;
    case 'drop':
      return n.synced;
    case 'zero':
      return Buffer.concat([base, Buffer.alloc(tail)]);
    case 'garble':
      return Buffer.concat([base, garbage(tail, seed)]);
    case 'torn':
      return Buffer.concat([base, n.cur.subarray(base.length, base.length + Math.floor(tail / 2))]);
  }
}

export interface CrashState {
  /** Reachable files (absolute path → bytes) and directories. */
  files: Map<string, Buffer>;
  dirs: Set<string>;
  /** Which pending changes persisted and which data mode: for failure messages. */
  describe: string;
}

/**
 * Every on-disk state a power cut could leave in state `s`. `roots` are directories that are
 * durable by assumption (the top of the modelled tree).
 */
export function crashStates(s: ModelState, roots: readonly string[]): CrashState[] {
  const out: CrashState[] = [];
  const seen = new Set<string>();
  for (const subset of pendingSubsets(s.pending)) {
    const entries = new Map(s.durable);
    for (const i of subset) applyDirOp(entries, s.pending[i]!);
    const reachable = (p: string): boolean => {
      for (let d = dirname(p); !roots.includes(d); d = dirname(d)) {
        const e = entries.get(d);
        if (!e?.dir) return false;
        if (d === '/' || d === '.') return false;
      }
      return true;
    };
    for (const mode of DATA_MODES) {
      const files = new Map<string, Buffer>();
      const dirs = new Set<string>();
      for (const [p, e] of entries) {
        if (!reachable(p)) continue;
        if (e.dir) dirs.add(p);
        else files.set(p, contentFor(s.inodes[e.ino]!, mode, `${p}:${mode}`));
      }
      const key = stateKey(files, dirs);
      if (seen.has(key)) continue;
      seen.add(key);
      const persisted = subset.map((i) => describeOp(s.pending[i]!));
      out.push({
        files,
        dirs,
        describe: `pending changes persisted: [${persisted.join('; ') || 'none'}] of ${s.pending.length}; unsynced data: ${mode}`,
      });
    }
  }
  return out;
}

function describeOp(op: DirOp): string {
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  return op.kind === 'rename' ? `rename ${base(op.path)}→${base(op.to)}` : `${op.kind} ${base(op.path)}`;
}

function stateKey(files: Map<string, Buffer>, dirs: Set<string>): string {
  const h = createHash('sha256');
  for (const d of [...dirs].sort()) h.update(`d:${d}\0`);
  for (const p of [...files.keys()].sort()) h.update(`f:${p}\0`).update(files.get(p)!).update('\0');
  return h.digest('hex');
}
