import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Review, ReviewRow } from '../../src/types.js';

// Real trees in fresh temp directories for the scanner tests.

/** Every test file (one process each) gets its own KORTTY_HOME, removed afterwards. */
export function useTempHome(): { dir: string } {
  const home = { dir: '' };
  test.before(async () => {
    home.dir = await mkdtemp(join(tmpdir(), 'kortty-scan-home-'));
    process.env.KORTTY_HOME = home.dir;
  });
  test.after.always(() => rm(home.dir, { recursive: true, force: true }));
  return home;
}

export async function tempTree(t: ExecutionContext, prefix = 'kortty-scan-'): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(async () => {
    // Undo test-made permission locks first so a non-root run can delete the tree.
    execFileSync('chmod', ['-R', 'u+rwx', root]);
    await rm(root, { recursive: true, force: true });
  });
  return root;
}

export function put(root: string, rel: string, content: string | Uint8Array = 'text\n'): string {
  const path = join(root, rel);
  fs.mkdirSync(dirname(path), { recursive: true });
  fs.writeFileSync(path, content);
  return path;
}

export function rowMap(review: Review): Map<string, ReviewRow> {
  return new Map(review.rows.map((r) => [r.relPath, r]));
}

export function row(review: Review, relPath: string): ReviewRow {
  const r = review.rows.find((x) => x.relPath === relPath);
  if (!r) throw new Error(`no row ${relPath}; rows: ${review.rows.map((x) => x.relPath).join(', ')}`);
  return r;
}

export function acceptedPaths(review: Review): string[] {
  return review.rows.filter((r) => r.status !== 'skipped').map((r) => r.relPath);
}

/** Recursively list every path under `root` with its content hash-relevant bytes, to prove a scan wrote nothing. */
export function snapshotTree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const p = join(dir, name);
      const st = fs.lstatSync(p);
      out.push(`${p.slice(root.length)} ${st.mode} ${st.size} ${st.mtimeMs}`);
      if (st.isDirectory() && (st.mode & 0o500) === 0o500) walk(p);
    }
  };
  walk(root);
  return out;
}
