import { DEFAULT_CHUNK_PARAMS, MAX_CHUNK_TOKENS, MIN_CHUNK_TOKENS } from '../../app/limits.js';
import type { Vault } from '../../app/vault.js';
import {
  createStore,
  deleteStore,
  findStore,
  rebuildStore,
  scanStores,
  setStoreRoles,
  storeStats,
} from '../../store/engine.js';
import { healthLabel } from '../../store/store-config.js';
import type { StoreConfig } from '../../store/store-types.js';
import { sanitizeLine } from '../../util/terminal-text.js';
import { parseRoles, roleOption, wholeRange } from '../args.js';
import { type CommandGroup, defineCommand, usageError } from '../command.js';
import type { CliIO } from '../io.js';
import { runCliJob } from '../job-runner.js';
import { formatSummary, table } from '../progress.js';

const NAME = [{ name: 'NAME' }] as const;

const create = defineCommand({
  name: 'store create',
  summary: 'create a knowledge store',
  positionals: NAME,
  options: {
    model: {
      type: 'string',
      value: 'ID',
      help: 'embedding model (default: the installed default, else the starter)',
    },
    role: roleOption,
    autonomous: { type: 'boolean', help: 'allow agent, planning, swarm and scheduled prompts to use it' },
    'chunk-size': {
      type: 'string',
      value: 'N',
      help: `tokens per chunk (default ${DEFAULT_CHUNK_PARAMS.chunkTokens})`,
      range: wholeRange(MIN_CHUNK_TOKENS, MAX_CHUNK_TOKENS, 'tokens'),
    },
    'chunk-overlap': {
      type: 'string',
      value: 'N',
      help: `tokens of overlap, at most half the chunk size (default ${DEFAULT_CHUNK_PARAMS.overlapTokens})`,
      range: wholeRange(0, Math.floor(MAX_CHUNK_TOKENS / 2), 'tokens'),
    },
    dimension: {
      type: 'string',
      value: 'N',
      help: 'expected vector dimension; another is refused',
      range: wholeRange(1, 65536, 'dimensions'),
    },
    type: {
      type: 'string',
      value: 'TYPE',
      help: 'where vectors live',
      choices: ['local', 'qdrant'],
      default: 'local',
    },
    'qdrant-url': { type: 'string', value: 'URL', help: 'Qdrant endpoint (with --type qdrant)' },
    'qdrant-collection': { type: 'string', value: 'C', help: 'Qdrant collection (with --type qdrant)' },
    'api-key-stdin': { type: 'boolean', help: 'read the Qdrant API key from stdin' },
  },
  notes: `The Qdrant API key is read from stdin, never from arguments, and kept in the encrypted vault;
the vault passphrase comes from KORTTY_VAULT_PASSPHRASE or a prompt.`,
  async run({ values, args, io, out }) {
    const qdrant = values.type === 'qdrant';
    if (qdrant && (!values['qdrant-url'] || !values['qdrant-collection'])) {
      throw usageError('--type qdrant needs --qdrant-url and --qdrant-collection');
    }
    let secret: { qdrantApiKey?: string; vault?: Vault } = {};
    if (values['api-key-stdin']) {
      const { unlockVault } = await import('../../app/vault.js');
      const key = (await readStdin(io)).trim();
      if (!key) throw usageError('--api-key-stdin: no API key on stdin');
      secret = {
        qdrantApiKey: key,
        vault: await unlockVault({
          env: io.env,
          stdin: io.stdin as never,
          stderr: io.rawStderr ?? io.stderr,
        }),
      };
    }
    const cfg = await createStore({
      ...secret,
      name: args.NAME!,
      modelId: values.model ?? (await defaultModelId()),
      roles: parseRoles(values.role),
      autonomous: values.autonomous ?? false,
      type: qdrant ? 'qdrant' : 'local',
      chunk: {
        ...(values['chunk-size'] ? { chunkTokens: Number(values['chunk-size']) } : {}),
        ...(values['chunk-overlap'] ? { overlapTokens: Number(values['chunk-overlap']) } : {}),
      },
      ...(values.dimension ? { dimension: Number(values.dimension) } : {}),
      ...(qdrant ? { qdrant: { url: values['qdrant-url']!, collection: values['qdrant-collection']! } } : {}),
    });
    out(
      cfg,
      `created store "${cfg.name}" (${cfg.type}, model ${cfg.modelId}, ${cfg.fingerprint.dimension} dims)`,
    );
    return 0;
  },
});

const list = defineCommand({
  name: 'store list',
  summary: 'list knowledge stores',
  options: {},
  async run({ out }) {
    const { stores, damaged, unhealthy } = await scanStores();
    const health = new Map(unhealthy.map((u) => [u.id, u]));
    const rows = stores.map((s) => [
      s.name,
      s.type,
      s.modelId,
      String(s.fingerprint.dimension),
      s.roles.join(',') || '-',
      String(s.sources.length),
      String(s.sources.reduce((n, x) => n + x.chunks, 0)),
      health.has(s.id) ? healthLabel(health.get(s.id)!.kind) : storeStatus(s),
    ]);
    // A damaged store stays in the list, with the file and field that make it unusable.
    for (const d of damaged) rows.push([d.name ?? d.id, '?', '?', '?', '?', '?', '?', 'DAMAGED']);
    const notes = [
      ...damaged.map((d) => `damaged: ${sanitizeLine(d.error.message)}`),
      ...unhealthy.map(
        (u) =>
          `${healthLabel(u.kind).toLowerCase()}: store "${sanitizeLine(u.name)}": ${sanitizeLine(u.reason)} (fix: ${sanitizeLine(u.fix)})`,
      ),
    ];
    out(
      [
        ...stores.map((s) => {
          const h = health.get(s.id);
          return h
            ? { ...s, health: { status: healthLabel(h.kind), reason: h.reason, fix: h.fix, at: h.at } }
            : s;
        }),
        ...damaged.map((d) => ({
          id: d.id,
          name: d.name,
          damaged: true,
          path: d.path,
          error: d.error.message,
        })),
      ],
      rows.length === 0
        ? 'no stores yet: kortty-rag store create NAME'
        : [
            table([['NAME', 'TYPE', 'MODEL', 'DIM', 'ROLES', 'SOURCES', 'CHUNKS', 'STATUS'], ...rows]),
            ...notes,
          ].join('\n'),
    );
    return 0;
  },
});

const show = defineCommand({
  name: 'store show',
  summary: 'show a store, its snapshot and its sources',
  positionals: NAME,
  options: {},
  async run({ args, out }) {
    const cfg = await findStore(args.NAME!);
    const stats = await storeStats(cfg);
    const text = [
      `store ${sanitizeLine(cfg.name)} (${cfg.id})`,
      `  type ${cfg.type} · model ${cfg.modelId} · ${cfg.fingerprint.dimension} dims · pooling ${cfg.fingerprint.pooling}`,
      `  roles ${cfg.roles.join(', ') || 'none'} · autonomous workflows ${cfg.autonomous ? 'on' : 'off'} · chunks ${cfg.chunk.chunkTokens}/${cfg.chunk.overlapTokens}`,
      `  snapshot: ${stats.documents} documents, ${stats.chunks} chunks`,
      ...cfg.sources.map(
        (s) =>
          `  ${s.id} ${s.kind} ${sanitizeLine(s.path)} [${s.sync}] ${s.status}${s.enabled ? '' : ' (disabled)'} files ${s.files} chunks ${s.chunks} problems ${s.problems} skipped ${s.skipped}`,
      ),
    ].join('\n');
    out({ ...cfg, snapshot: stats }, text);
    return 0;
  },
});

const roles = defineCommand({
  name: 'store roles',
  summary: 'set the roles a store serves and its autonomous-workflows opt-in',
  positionals: NAME,
  options: {
    role: roleOption,
    autonomous: { type: 'boolean', help: 'allow agent, planning, swarm and scheduled prompts' },
    'no-autonomous': { type: 'boolean', help: 'withdraw that permission' },
  },
  notes: "The roles given replace the store's roles; no --role detaches it from every role.",
  async run({ values, args, out }) {
    if (values.autonomous && values['no-autonomous'])
      throw usageError('--autonomous and --no-autonomous contradict');
    const autonomous = values['no-autonomous'] ? false : values.autonomous;
    const cfg = await setStoreRoles(args.NAME!, parseRoles(values.role), autonomous);
    out(
      cfg,
      `store "${cfg.name}": roles ${cfg.roles.join(', ') || 'none'}, autonomous workflows ${cfg.autonomous ? 'on' : 'off'}`,
    );
    return 0;
  },
});

const rebuild = defineCommand({
  name: 'store rebuild',
  summary: 'embed every source again (to change the model)',
  positionals: NAME,
  options: {
    model: { type: 'string', value: 'ID', help: 'the new embedding model (default: the current one)' },
  },
  notes: 'Ctrl-C cancels before activation and leaves the store as it was.',
  async run({ values, args, io, out, json }) {
    const job = await runCliJob(io, { quiet: json }, (h) =>
      rebuildStore(args.NAME!, values.model, { onProgress: h.onProgress, signal: h.signal }),
    );
    if (job.done) out(job.result.summary, `rebuilt: ${formatSummary(job.result.summary)}`);
    return job.exitCode;
  },
});

const remove = defineCommand({
  name: 'store delete',
  summary: 'delete a store (its index only; source files are never touched)',
  positionals: NAME,
  options: { detach: { type: 'boolean', help: 'also detach it from the roles it serves' } },
  async run({ values, args, out }) {
    const { dir, store } = await deleteStore(args.NAME!, { detach: values.detach });
    out(
      { deleted: store.name, dir },
      `deleted store "${store.name}": removed ${dir}; source files were not touched`,
    );
    return 0;
  },
});

export const definition: CommandGroup = {
  name: 'store',
  summary: 'knowledge stores',
  notes: 'NAME is a store name or id.',
  commands: [create, list, show, roles, rebuild, remove],
};

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

async function defaultModelId(): Promise<string> {
  const { defaultStoreModel } = await import('../../store/model-resolve.js');
  return defaultStoreModel();
}
