import type { Binding } from '../bindings.js';
import { optionFields, readOptions, readSyncMode, syncField } from '../source-options-form.js';
import { jobBlocked, type OptionsDialog, selectedSource, selectedStore } from '../state.js';
import { openAddSource } from './add-source-controller.js';
import { openBrowser } from './browser-controller.js';
import type { Ctx, Scope } from './ctx.js';
import { listBindings } from './list-bindings.js';
import { openSearch, searchBlocked } from './search-controller.js';

// The sources pane: Add files, Add folder, Update now, Disable/Enable, Remove, Test search and the
// per-source Advanced options. Scans and indexing run in a child process (job-controller.ts).

export function sourcesScope(ctx: Ctx): Scope {
  const s = ctx.state;
  const store = () => selectedStore(s);
  const needStore = () => (store() ? undefined : 'no store selected');
  const needSource = () => needStore() ?? (selectedSource(s) ? undefined : 'no source selected');
  const blocked = () => needStore() ?? jobBlocked(s, store());
  const add = (mode: 'files' | 'folder') => () => addToStore(ctx, mode);
  const update =
    (all: boolean, retryFailed = false) =>
    async () => {
      const st = store()!;
      const ids = all ? st.sources.map((x) => x.id) : [selectedSource(s)!.id];
      await ctx.jobs.start(
        { op: 'update', store: st.id, sources: all ? 'all' : ids, ...(retryFailed ? { retryFailed } : {}) },
        { op: 'update', storeId: st.id, storeName: st.name, adding: [], sourceIds: ids },
      );
    };
  const bindings: Binding[] = [
    { action: 'sources.addFolder', handler: add('folder'), disabledReason: blocked },
    { action: 'sources.addFiles', handler: add('files'), disabledReason: blocked },
    { action: 'sources.updateNow', handler: update(false), disabledReason: () => needSource() ?? blocked() },
    {
      action: 'sources.retryFailed',
      handler: update(false, true),
      disabledReason: () => needSource() ?? blocked(),
      hint: false,
    },
    {
      action: 'sources.updateAll',
      handler: update(true),
      disabledReason: () =>
        needStore() ?? ((store()?.sources.length ?? 0) === 0 ? 'the store has no sources' : blocked()),
    },
    {
      action: 'sources.toggleEnabled',
      handler: () => toggleEnabled(ctx),
      disabledReason: () =>
        needSource() ?? (s.job?.storeId === store()?.id ? jobBlocked(s, store()) : undefined),
    },
    {
      action: 'sources.remove',
      handler: () => confirmRemove(ctx),
      disabledReason: () => needSource() ?? blocked(),
    },
    { action: 'sources.testSearch', handler: () => openSearch(ctx), disabledReason: () => searchBlocked(s) },
    {
      action: 'sources.options',
      handler: () => openOptions(ctx),
      disabledReason: () =>
        needSource() ?? (s.job?.storeId === store()?.id ? jobBlocked(s, store()) : undefined),
    },
    {
      action: 'sources.back',
      handler: () => {
        s.focus = 'stores';
      },
      hint: false,
    },
    ...listBindings({
      count: () => store()?.sources.length ?? 0,
      get: () => s.sourceSel,
      set: (i) => (s.sourceSel = i),
    }),
  ];
  return { chain: 'sources', groups: [{ title: 'Sources pane', bindings }] };
}

/** Add folder / Add files to the selected store: browse, then the source's options and the check. */
export function addToStore(ctx: Ctx, mode: 'files' | 'folder') {
  return openBrowser(ctx, mode, 'store', (paths) => {
    const st = selectedStore(ctx.state);
    if (st)
      openAddSource(
        ctx,
        st,
        paths.map((path) => ({ kind: mode === 'folder' ? 'folder' : 'file', path })),
      );
  });
}

async function toggleEnabled(ctx: Ctx) {
  const st = selectedStore(ctx.state)!;
  const src = selectedSource(ctx.state)!;
  const on = !src.enabled;
  const ok = await ctx.op(`${on ? 'Enabling' : 'Disabling'} ${src.path}…`, () =>
    ctx.services.setSourceEnabled(st.id, src.id, on),
  );
  if (ok === undefined) return;
  await ctx.refresh();
  ctx.notify(
    on
      ? `Enabled ${src.path}: retrieval uses it again.`
      : `Disabled ${src.path}: chunks are kept, retrieval skips it.`,
    'ok',
  );
}

function confirmRemove(ctx: Ctx) {
  const st = selectedStore(ctx.state)!;
  const src = selectedSource(ctx.state)!;
  ctx.push({
    kind: 'confirm',
    title: 'Remove source',
    lines: [
      { text: `Remove this ${src.kind} source from "${st.name}"?` },
      { text: src.path, tone: 'path' },
      {
        text: `Its ${src.chunks} chunk(s) from ${src.files} file(s) are deleted from the index. The files themselves are never deleted.`,
      },
    ],
    yes: 'remove the source',
    onYes: () =>
      ctx.jobs.start(
        { op: 'remove', store: st.id, source: src.id },
        { op: 'remove', storeId: st.id, storeName: st.name, adding: [], sourceIds: [src.id] },
      ),
  });
}

function openOptions(ctx: Ctx) {
  const st = selectedStore(ctx.state)!;
  const src = selectedSource(ctx.state)!;
  const d: OptionsDialog = {
    kind: 'options',
    storeId: st.id,
    sourceId: src.id,
    path: src.path,
    form: {
      focus: 'sync',
      fields: [
        syncField(src.sync),
        ...optionFields(src.options, src.kind === 'folder'),
        { kind: 'note', id: 'n', text: 'Changes apply at the next Update now.' },
        { kind: 'button', id: 'save', label: 'Save' },
      ],
    },
  };
  ctx.push(d);
}

export async function saveOptions(ctx: Ctx, d: OptionsDialog) {
  const read = readOptions(d.form);
  if ('error' in read) {
    d.form = { ...d.form, error: read.error };
    return;
  }
  const ok = await ctx.op('Saving options…', async () => {
    await ctx.services.setSourceSync(d.storeId, d.sourceId, readSyncMode(d.form));
    await ctx.services.setSourceOptions(d.storeId, d.sourceId, read.options);
    return true;
  });
  if (!ok) return;
  ctx.pop(d);
  await ctx.refresh();
  ctx.notify('Options saved: they apply at the next Update now.', 'ok');
}
