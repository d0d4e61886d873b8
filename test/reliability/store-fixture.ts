import { mkdir, mkdtemp, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { snapshotPath, storeConfigPath, storeDir, storeLockPath } from '../../src/storage/paths.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore, updateSources } from '../../src/store/engine.js';
import type { PipelinePorts } from '../../src/store/ports.js';
import { loadStore, storeIdFor } from '../../src/store/store-config.js';
import type { StoreConfig } from '../../src/store/store-types.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { check } from './common.js';

// A store in a known "old" state plus a known "new" tree, with the snapshot a from-scratch build
// of the new tree gives (builds are deterministic, so any correct path to the new tree must end
// in exactly these bytes).
//
// Two change sets: `edit` (edit, delete, rename, add a large file: the job embeds ~60 chunks in
// two batches) and `delete` (two deletions: nothing to embed, the snapshot is still rewritten).
// Small chunks (100 tokens) keep each trial's embedding cheap while still giving many chunks.

export const STORE_NAME = 'Docs';
export const STORE_ID = storeIdFor(STORE_NAME);
export const CHUNK = { chunkTokens: 100, overlapTokens: 20 };

export type ChangeKind = 'edit' | 'delete';

export interface Scenario {
  kind: ChangeKind;
  root: string;
  /** Files of the store directory in the old state (store.json, index.hnsw). */
  template: Map<string, Buffer>;
  oldSnap: Buffer;
  oldCfg: Buffer;
  oldDocs: string[];
  newSnap: Buffer;
  newDocs: string[];
  fingerprint: StoreConfig['fingerprint'];
}

/** Directories this process created for fixtures (homes with a model copy, trees): see removeFixtures. */
const created: string[] = [];

export async function removeFixtures(): Promise<void> {
  for (const d of created.splice(0)) await rm(d, { recursive: true, force: true });
  shared.clear();
}

export function oldTree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 16; i++)
    files[`notes/n${String(i).padStart(2, '0')}.md`] = prose(`note${i}`, 20, i + 1);
  for (let i = 0; i < 6; i++)
    files[`code/c${i}.py`] = `# module ${i}\n${prose(`code${i}`, 12, 100 + i).replace(/^/gm, '# ')}`;
  files['README.txt'] = prose('readme', 12, 999);
  return files;
}

export async function applyChange(root: string, kind: ChangeKind): Promise<void> {
  if (kind === 'delete') {
    await unlink(join(root, 'notes/n01.md'));
    await unlink(join(root, 'code/c3.py'));
    return;
  }
  await writeFile(join(root, 'notes/n00.md'), prose('edited', 25, 4242));
  await unlink(join(root, 'notes/n01.md'));
  await rename(join(root, 'notes/n02.md'), join(root, 'notes/n02-renamed.md'));
  await writeTree(root, {
    'big/handbook.md': prose('handbook', 260, 77),
    'new.txt': prose('fresh', 15, 78),
  });
}

/** Docs of a snapshot as `path sha256` lines (sorted as stored). */
export async function docsOf(path: string): Promise<string[]> {
  const snap = await openSnapshot(path);
  check(snap, `${path}: no snapshot`);
  try {
    return snap.data.docs.map((d) => `${d.path} ${d.sha256}`);
  } finally {
    snap.close();
  }
}

export async function readStoreDir(home: string): Promise<Map<string, Buffer>> {
  const dir = storeDir(STORE_ID, home);
  const out = new Map<string, Buffer>();
  for (const name of await readdir(dir)) {
    if (name === 'lock' || name.startsWith('.tmp-')) continue;
    out.set(name, await readFile(join(dir, name)));
  }
  return out;
}

export async function restoreStore(home: string, template: Map<string, Buffer>): Promise<void> {
  const dir = storeDir(STORE_ID, home);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const [name, bytes] of template) await writeFile(join(dir, name), bytes);
}

/** Builds the old store, applies the change, and builds the new tree from scratch elsewhere. */
export async function buildScenario(
  kind: ChangeKind,
  ports?: (home: string) => PipelinePorts,
): Promise<Scenario> {
  const root = await mkdtemp(join(tmpdir(), `kortty-rel-${kind}-`));
  created.push(root);
  await writeTree(root, oldTree());
  const tplHome = await homeWithStarter();
  const p = ports ?? createDefaultPorts;
  await createStore(
    { name: STORE_NAME, modelId: 'kortty-lexical-starter', roles: ['text'], chunk: CHUNK },
    tplHome,
  );
  await addSources(STORE_NAME, [{ kind: 'folder', path: root }], { ports: p(tplHome) }, tplHome);
  const template = await readStoreDir(tplHome);
  const oldDocs = await docsOf(snapshotPath(STORE_ID, tplHome));
  const cfg = await loadStore(STORE_ID, tplHome);
  await applyChange(root, kind);
  const refHome = await homeWithStarter();
  await createStore(
    { name: STORE_NAME, modelId: 'kortty-lexical-starter', roles: ['text'], chunk: CHUNK },
    refHome,
  );
  await addSources(STORE_NAME, [{ kind: 'folder', path: root }], { ports: p(refHome) }, refHome);
  const newSnap = await readFile(snapshotPath(STORE_ID, refHome));
  const newDocs = await docsOf(snapshotPath(STORE_ID, refHome));
  await rm(tplHome, { recursive: true, force: true });
  await rm(refHome, { recursive: true, force: true });
  return {
    kind,
    root,
    template,
    oldSnap: template.get('index.hnsw')!,
    oldCfg: template.get('store.json')!,
    oldDocs,
    newSnap,
    newDocs,
    fingerprint: cfg.fingerprint,
  };
}

const shared = new Map<ChangeKind, Promise<Scenario>>();
/** One scenario per change set for the whole process (building one takes seconds). */
export function sharedScenario(kind: ChangeKind): Promise<Scenario> {
  let p = shared.get(kind);
  if (!p) {
    p = buildScenario(kind);
    shared.set(kind, p);
  }
  return p;
}

export type Which = 'old' | 'new';

export interface CrashVerdict {
  snapshot: Which;
  config: Which;
  tempsBefore: string[];
  removedByOpen: string[];
}

/**
 * After a crash: the live snapshot is byte-for-byte the old one or the from-scratch new one,
 * opens and verifies (every checksum, the fingerprint) with the matching documents; store.json
 * is the old bytes or records the new documents, never ahead of the snapshot; opening removes
 * every temp file the dead writer left.
 */
export async function verifyAfterCrash(home: string, sc: Scenario): Promise<CrashVerdict> {
  const dir = storeDir(STORE_ID, home);
  const tempsBefore = (await readdir(dir)).filter((n) => n.startsWith('.tmp-'));
  const snapBytes = await readFile(snapshotPath(STORE_ID, home));
  const snapshot: Which | undefined = snapBytes.equals(sc.oldSnap)
    ? 'old'
    : snapBytes.equals(sc.newSnap)
      ? 'new'
      : undefined;
  check(snapshot, () => `index.hnsw is neither the old nor the new snapshot (${snapBytes.length} bytes)`);
  const cfgBytes = await readFile(storeConfigPath(STORE_ID, home));
  const cfg = JSON.parse(cfgBytes.toString('utf8')) as StoreConfig;
  const hashes = cfg.sources.flatMap((s) => Object.entries(s.hashes).map(([p, h]) => `${p} ${h}`)).sort();
  const config: Which | undefined = cfgBytes.equals(sc.oldCfg)
    ? 'old'
    : JSON.stringify(hashes) === JSON.stringify([...sc.newDocs].sort())
      ? 'new'
      : undefined;
  check(config, 'store.json is neither the old file nor a record of the new documents');
  check(
    !(config === 'new' && snapshot === 'old'),
    'store.json records the new documents but the snapshot is old',
  );
  const snap = await openSnapshot(snapshotPath(STORE_ID, home), { expectFingerprint: sc.fingerprint });
  check(snap, 'the snapshot does not open');
  let removedByOpen: string[];
  try {
    const docs = snap.data.docs.map((d) => `${d.path} ${d.sha256}`);
    check(
      JSON.stringify(docs) === JSON.stringify(snapshot === 'old' ? sc.oldDocs : sc.newDocs),
      'opened documents differ from the expected snapshot',
    );
    removedByOpen = snap.removedTemps;
  } finally {
    snap.close();
  }
  const left = (await readdir(dir)).filter((n) => n.startsWith('.tmp-'));
  check(left.length === 0, () => `temp files left after open: ${left.join(', ')}`);
  return { snapshot, config, tempsBefore, removedByOpen };
}

/** "Update now" after a crash ends in exactly the from-scratch snapshot and a matching store.json. */
export async function convergeAndCheck(home: string, sc: Scenario, ports: PipelinePorts): Promise<void> {
  await updateSources(STORE_NAME, 'all', { ports }, home);
  const bytes = await readFile(snapshotPath(STORE_ID, home));
  check(
    bytes.equals(sc.newSnap),
    'after Update now the snapshot differs from a from-scratch build of the same tree',
  );
  const cfg = await loadStore(STORE_ID, home);
  const hashes = cfg.sources.flatMap((s) => Object.entries(s.hashes).map(([p, h]) => `${p} ${h}`)).sort();
  check(
    JSON.stringify(hashes) === JSON.stringify([...sc.newDocs].sort()),
    'store.json does not record the new tree',
  );
  check(
    cfg.sources.every((s) => s.status === 'READY'),
    'a source is not READY after Update now',
  );
  const dir = storeDir(STORE_ID, home);
  const left = (await readdir(dir)).filter((n) => n.startsWith('.tmp-') || n.startsWith('lock'));
  check(left.length === 0, () => `left behind after Update now: ${left.join(', ')}`);
  await rm(storeLockPath(STORE_ID, home), { recursive: true, force: true });
}

/** A fresh home with the starter model, plus a lease that keeps the model loaded in this process. */
export async function laneHome(sc: Scenario): Promise<{ home: string; ports: PipelinePorts }> {
  const home = await homeWithStarter();
  created.push(home);
  await mkdir(storeDir(STORE_ID, home), { recursive: true });
  await restoreStore(home, sc.template);
  const ports = createDefaultPorts(home);
  // Opening (and never closing) one embedder keeps the model loaded for every later job here.
  const cfg = await loadStore(STORE_ID, home);
  await ports.openEmbedder(cfg.fingerprint, cfg.modelId);
  return { home, ports };
}

export async function scratchDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}
