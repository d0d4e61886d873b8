import { parseArgs } from 'node:util';
import { createError } from '../../errors.js';
import {
  createStore,
  deleteStore,
  findStore,
  listStores,
  rebuildStore,
  setStoreRoles,
  storeStats,
} from '../../store/engine.js';
import type { StoreConfig } from '../../store/store-types.js';
import type { Role } from '../../types.js';
import { onInterrupt } from '../../util/interrupt.js';
import type { CliIO } from '../io.js';
import { formatSummary, progressPrinter, table } from '../progress.js';

const USAGE = `usage:
  kortty-rag store create NAME [--model ID] [--role text|coding]... [--autonomous]
                              [--chunk-size N] [--chunk-overlap N] [--dimension N]
                              [--type local|qdrant --qdrant-url URL --qdrant-collection C [--api-key-stdin]] [--json]
        (the Qdrant API key is read from stdin, never from arguments, and kept in the encrypted vault;
         the vault passphrase comes from KORTTY_VAULT_PASSPHRASE or a prompt)
  kortty-rag store list [--json]
  kortty-rag store show NAME [--json]
  kortty-rag store roles NAME [--role text|coding]... [--autonomous|--no-autonomous]
  kortty-rag store rebuild NAME [--model ID] [--json]
  kortty-rag store delete NAME [--detach] [--json]`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      model: { type: 'string' },
      role: { type: 'string', multiple: true },
      autonomous: { type: 'boolean' },
      'no-autonomous': { type: 'boolean' },
      'chunk-size': { type: 'string' },
      'chunk-overlap': { type: 'string' },
      dimension: { type: 'string' },
      type: { type: 'string' },
      'qdrant-url': { type: 'string' },
      'qdrant-collection': { type: 'string' },
      'api-key-stdin': { type: 'boolean' },
      detach: { type: 'boolean' },
    },
  });
  const out = (obj: unknown, text: string) =>
    io.stdout.write(values.json ? `${JSON.stringify(obj, null, 2)}\n` : `${text}\n`);
  const name = positionals[0];
  switch (sub) {
    case 'create': {
      if (!name) throw createError('INVALID_ARGUMENT', { name: 'NAME', reason: 'missing store name' });
      let secret: { qdrantApiKey?: string; vault?: import('../../vault/vault.js').Vault } = {};
      if (values['api-key-stdin']) {
        const { unlockVault } = await import('../../vault/passphrase.js');
        const key = (await readStdin(io)).trim();
        if (!key)
          throw createError('INVALID_ARGUMENT', { name: '--api-key-stdin', reason: 'no API key on stdin' });
        secret = {
          qdrantApiKey: key,
          vault: await unlockVault({ env: io.env, stdin: io.stdin as never, stderr: io.stderr }),
        };
      }
      const cfg = await createStore({
        ...secret,
        name,
        modelId: values.model ?? (await defaultModelId()),
        roles: parseRoles(values.role),
        autonomous: values.autonomous ?? false,
        type: values.type === 'qdrant' ? 'qdrant' : 'local',
        chunk: {
          ...(values['chunk-size'] ? { chunkTokens: toInt(values['chunk-size'], 'chunk-size') } : {}),
          ...(values['chunk-overlap']
            ? { overlapTokens: toInt(values['chunk-overlap'], 'chunk-overlap') }
            : {}),
        },
        ...(values.dimension ? { dimension: toInt(values.dimension, 'dimension') } : {}),
        ...(values.type === 'qdrant'
          ? { qdrant: { url: values['qdrant-url'] ?? '', collection: values['qdrant-collection'] ?? '' } }
          : {}),
      });
      out(
        cfg,
        `created store "${cfg.name}" (${cfg.type}, model ${cfg.modelId}, ${cfg.fingerprint.dimension} dims)`,
      );
      return 0;
    }
    case 'list': {
      const stores = await listStores();
      const rows = stores.map((s) => [
        s.name,
        s.type,
        s.modelId,
        String(s.fingerprint.dimension),
        s.roles.join(',') || '-',
        String(s.sources.length),
        String(s.sources.reduce((n, x) => n + x.chunks, 0)),
        storeStatus(s),
      ]);
      out(
        stores,
        stores.length === 0
          ? 'no stores yet: kortty-rag store create NAME'
          : table([['NAME', 'TYPE', 'MODEL', 'DIM', 'ROLES', 'SOURCES', 'CHUNKS', 'STATUS'], ...rows], io),
      );
      return 0;
    }
    case 'show': {
      if (!name) throw createError('INVALID_ARGUMENT', { name: 'NAME', reason: 'missing store name' });
      const cfg = await findStore(name);
      const stats = await storeStats(cfg);
      const text = [
        `store ${cfg.name} (${cfg.id})`,
        `  type ${cfg.type} · model ${cfg.modelId} · ${cfg.fingerprint.dimension} dims · pooling ${cfg.fingerprint.pooling}`,
        `  roles ${cfg.roles.join(', ') || 'none'} · autonomous workflows ${cfg.autonomous ? 'on' : 'off'} · chunks ${cfg.chunk.chunkTokens}/${cfg.chunk.overlapTokens}`,
        `  snapshot: ${stats.documents} documents, ${stats.chunks} chunks`,
        ...cfg.sources.map(
          (s) =>
            `  ${s.id} ${s.kind} ${s.path} [${s.sync}] ${s.status}${s.enabled ? '' : ' (disabled)'} files ${s.files} chunks ${s.chunks} problems ${s.problems}`,
        ),
      ].join('\n');
      out({ ...cfg, snapshot: stats }, text);
      return 0;
    }
    case 'roles': {
      if (!name) throw createError('INVALID_ARGUMENT', { name: 'NAME', reason: 'missing store name' });
      const autonomous = values['no-autonomous'] ? false : values.autonomous;
      const cfg = await setStoreRoles(name, parseRoles(values.role), autonomous);
      out(
        cfg,
        `store "${cfg.name}": roles ${cfg.roles.join(', ') || 'none'}, autonomous workflows ${cfg.autonomous ? 'on' : 'off'}`,
      );
      return 0;
    }
    case 'rebuild': {
      if (!name) throw createError('INVALID_ARGUMENT', { name: 'NAME', reason: 'missing store name' });
      const progress = progressPrinter(io, values.json);
      const res = await rebuildStore(name, values.model, {
        onProgress: progress.onProgress,
        signal: interruptSignal(),
      });
      progress.done();
      out(res.summary, `rebuilt: ${formatSummary(res.summary)}`);
      return 0;
    }
    case 'delete': {
      if (!name) throw createError('INVALID_ARGUMENT', { name: 'NAME', reason: 'missing store name' });
      const { dir, store } = await deleteStore(name, { detach: values.detach });
      out(
        { deleted: store.name, dir },
        `deleted store "${store.name}": removed ${dir}; source files were not touched`,
      );
      return 0;
    }
    default:
      io.stderr.write(`${USAGE}\n`);
      return 2;
  }
}

async function readStdin(io: CliIO): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of io.stdin) parts.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(parts).toString('utf8');
}

export function storeStatus(s: StoreConfig): string {
  const st = s.sources.map((x) => x.status);
  if (st.includes('ERROR')) return 'ERROR';
  if (st.includes('MISSING')) return 'MISSING';
  if (s.sources.length === 0) return 'EMPTY';
  return s.sources.some((x) => x.limitedMonitoring) ? 'READY (limited monitoring)' : 'READY';
}

export function parseRoles(values: string[] | undefined): Role[] {
  const out: Role[] = [];
  for (const v of (values ?? []).flatMap((x) => x.split(','))) {
    const r = v.trim().toLowerCase();
    if (r === 'both') out.push('text', 'coding');
    else if (r === 'text' || r === 'coding') out.push(r);
    else if (r)
      throw createError('INVALID_ARGUMENT', { name: '--role', reason: `"${v}" is not text, coding or both` });
  }
  return [...new Set(out)];
}

export function toInt(v: string, name: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw createError('INVALID_ARGUMENT', { name: `--${name}`, reason: `"${v}" is not a whole number` });
  return n;
}

/** Ctrl-C, SIGTERM or a closed terminal cancels the job (before activation) instead of killing the process mid-write. */
export function interruptSignal(): AbortSignal {
  const ac = new AbortController();
  onInterrupt(() => ac.abort());
  return ac.signal;
}

async function defaultModelId(): Promise<string> {
  const { defaultStoreModel } = await import('../../store/model-resolve.js');
  return defaultStoreModel();
}
