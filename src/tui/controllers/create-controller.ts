import { chunkParamsProblem, MAX_CHUNK_TOKENS, MIN_CHUNK_TOKENS } from '../../chunk/params.js';
import { STARTER_MODEL_ID } from '../../embed/starter-model.js';
import { formatBytes } from '../../scan/units.js';
import type { CreateStoreInput } from '../../store/engine.js';
import type { Role } from '../../types.js';
import { checked, type Field, type Form, fieldValue, setNote, setOptions, textOf } from '../forms.js';
import type { CreateDialog, ModelChoice } from '../state.js';
import { openAssistant } from './assistant-controller.js';
import { openBrowser } from './browser-controller.js';
import type { Ctx, Scope } from './ctx.js';
import { formScope } from './form-controller.js';

// Create, beginner first: a name, an installed embedding model, role assignments and at least one
// reviewed source. Store type, dimension, Qdrant fields, chunking and autonomous workflows stay
// under a collapsed Advanced section; there is no vector-index tuning anywhere. The store and its
// first source come together: if the first review is cancelled or fails, the store is removed.

export function modelOptions(models: readonly ModelChoice[]) {
  return models.map((m) => ({
    value: m.id,
    label:
      m.id === STARTER_MODEL_ID ? `${m.id} (matches words, not meaning)` : `${m.id} (${formatBytes(m.size)})`,
  }));
}

export function createForm(models: readonly ModelChoice[]): Form {
  const fields: Field[] = [
    { kind: 'text', id: 'name', label: 'Name', value: '', placeholder: 'e.g. Project notes' },
    {
      kind: 'choice',
      id: 'model',
      label: 'Embedding model',
      value: models[0]?.id ?? '',
      options: modelOptions(models),
      hint: 'The index is tied to this model; changing it later means a rebuild.',
    },
    { kind: 'button', id: 'setupModel', label: 'Set up another model…' },
    { kind: 'check', id: 'roleText', label: 'Use for the Text role', value: true },
    { kind: 'check', id: 'roleCoding', label: 'Use for the Coding role', value: false },
    { kind: 'note', id: 'sourcesNote', text: 'First source: none chosen yet', tone: 'statusWarning' },
    { kind: 'button', id: 'addFolder', label: 'Add folder…' },
    { kind: 'button', id: 'addFiles', label: 'Add files…' },
    { kind: 'section', id: 'advanced', label: 'Advanced', open: false },
    {
      kind: 'choice',
      id: 'type',
      label: 'Store type',
      value: 'local',
      section: 'advanced',
      options: [
        { value: 'local', label: 'local (HNSW snapshot, no service)' },
        { value: 'qdrant', label: 'Qdrant (existing service)' },
      ],
    },
    {
      kind: 'text',
      id: 'qdrantUrl',
      label: 'Qdrant URL',
      value: '',
      section: 'advanced',
      when: { field: 'type', equals: 'qdrant' },
      placeholder: 'https://… (http only for loopback)',
    },
    {
      kind: 'text',
      id: 'qdrantCollection',
      label: 'Collection',
      value: '',
      section: 'advanced',
      when: { field: 'type', equals: 'qdrant' },
    },
    {
      kind: 'text',
      id: 'qdrantKey',
      label: 'API key (vault)',
      value: '',
      section: 'advanced',
      when: { field: 'type', equals: 'qdrant' },
      placeholder: 'vault entry name, optional',
    },
    {
      kind: 'text',
      id: 'dimension',
      label: 'Dimension',
      value: '',
      section: 'advanced',
      placeholder: "the model's own",
      hint: 'Optional check: a model producing another dimension is refused.',
    },
    {
      kind: 'text',
      id: 'chunkSize',
      label: 'Chunk size',
      value: '800',
      section: 'advanced',
      hint: `Tokens per chunk (${MIN_CHUNK_TOKENS} to ${MAX_CHUNK_TOKENS}).`,
    },
    {
      kind: 'text',
      id: 'chunkOverlap',
      label: 'Chunk overlap',
      value: '120',
      section: 'advanced',
      hint: 'Tokens shared by neighbouring chunks.',
    },
    {
      kind: 'check',
      id: 'autonomous',
      label: 'Autonomous workflows may retrieve from this store',
      value: false,
      section: 'advanced',
    },
    { kind: 'button', id: 'create', label: 'Create' },
  ];
  return { fields, focus: 'name' };
}

export async function openCreate(ctx: Ctx) {
  await ctx.op(undefined, () => ctx.refresh());
  const d: CreateDialog = { kind: 'create', form: createForm(ctx.state.models), sources: [] };
  ctx.push(d);
  if (ctx.state.models.length === 0) openAssistant(ctx, true);
}

/** After the assistant installed a model: offer it, selected. */
export function modelInstalled(d: CreateDialog, models: readonly ModelChoice[], id: string) {
  d.form = setOptions(d.form, 'model', modelOptions(models), id);
}

function sourcesNote(d: CreateDialog): string {
  if (d.sources.length === 0) return 'First source: none chosen yet';
  const first = d.sources[0]!;
  return `First source: ${first.path} (${first.kind})${d.sources.length > 1 ? ` +${d.sources.length - 1} more` : ''}`;
}

function disabled(ctx: Ctx, d: CreateDialog): Record<string, string | undefined> {
  const name = textOf(d.form, 'name');
  const why = !name
    ? 'give the store a name'
    : ctx.state.stores.some((s) => s.name === name)
      ? `a store named "${name}" already exists`
      : !fieldValue(d.form, 'model')
        ? 'install an embedding model first'
        : d.sources.length === 0
          ? 'add a folder or files first'
          : ctx.state.job
            ? `a job is running for "${ctx.state.job.storeName}"`
            : undefined;
  return { create: why };
}

function input(d: CreateDialog): CreateStoreInput | string {
  const int = (id: string) => Number(textOf(d.form, id));
  const size = int('chunkSize');
  const overlap = int('chunkOverlap');
  const bad = chunkParamsProblem({ chunkTokens: size, overlapTokens: overlap });
  if (bad?.name === 'chunkTokens')
    return `Chunk size: a whole number of tokens from ${MIN_CHUNK_TOKENS} to ${MAX_CHUNK_TOKENS}`;
  if (bad) return 'Chunk overlap: a whole number from 0 to half the chunk size';
  const dim = textOf(d.form, 'dimension');
  if (dim && !/^\d+$/.test(dim)) return 'Dimension: a whole number, or empty for the model’s own';
  const roles: Role[] = [
    ...(checked(d.form, 'roleText') ? ['text' as const] : []),
    ...(checked(d.form, 'roleCoding') ? ['coding' as const] : []),
  ];
  const qdrant = fieldValue(d.form, 'type') === 'qdrant';
  if (qdrant && (!textOf(d.form, 'qdrantUrl') || !textOf(d.form, 'qdrantCollection')))
    return 'Qdrant: the URL and the collection are required';
  return {
    name: textOf(d.form, 'name'),
    modelId: String(fieldValue(d.form, 'model')),
    roles,
    autonomous: checked(d.form, 'autonomous'),
    type: qdrant ? 'qdrant' : 'local',
    chunk: { chunkTokens: size, overlapTokens: overlap },
    ...(dim ? { dimension: Number(dim) } : {}),
    ...(qdrant
      ? {
          qdrant: {
            url: textOf(d.form, 'qdrantUrl'),
            collection: textOf(d.form, 'qdrantCollection'),
            ...(textOf(d.form, 'qdrantKey') ? { apiKeyRef: textOf(d.form, 'qdrantKey') } : {}),
          },
        }
      : {}),
  };
}

async function submit(ctx: Ctx, d: CreateDialog) {
  const inp = input(d);
  if (typeof inp === 'string') {
    d.form = { ...d.form, error: inp };
    return;
  }
  let cfg: Awaited<ReturnType<Ctx['services']['createStore']>>;
  try {
    cfg = await ctx.track(() => ctx.services.createStore(inp));
  } catch (err) {
    d.form = { ...d.form, error: (err as Error).message };
    return;
  }
  await ctx.refresh();
  // The new store is the one the user is working on now.
  const at = ctx.state.stores.findIndex((s) => s.id === cfg.id);
  if (at >= 0) {
    ctx.state.storeSel = at;
    ctx.state.sourceSel = 0;
    ctx.state.focus = 'sources';
  }
  d.form = { ...d.form, error: undefined };
  ctx.pop(d);
  await ctx.jobs.start(
    { op: 'add', store: cfg.id, inputs: d.sources.map((s) => ({ ...s, sync: 'manual' as const })) },
    { op: 'add', storeId: cfg.id, storeName: cfg.name, adding: d.sources, sourceIds: [], restore: d },
  );
}

export function createScope(ctx: Ctx, d: CreateDialog): Scope {
  const addSource = (mode: 'folder' | 'files') =>
    openBrowser(ctx, mode, 'create', (paths) => {
      const kind = mode === 'folder' ? 'folder' : 'file';
      for (const path of paths) if (!d.sources.some((s) => s.path === path)) d.sources.push({ kind, path });
      d.form = setNote(d.form, 'sourcesNote', sourcesNote(d));
      d.form = { ...d.form, focus: 'create', error: undefined };
    });
  return formScope(
    ctx,
    {
      get: () => d.form,
      set: (f) => {
        d.form = f;
      },
      disabled: () => disabled(ctx, d),
      press: async (id) => {
        if (id === 'setupModel') openAssistant(ctx, true);
        else if (id === 'addFolder') await addSource('folder');
        else if (id === 'addFiles') await addSource('files');
        else if (id === 'create') await submit(ctx, d);
      },
    },
    'Create knowledge store',
  );
}
