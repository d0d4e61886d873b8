import type { Role } from '../../types.js';
import type { Binding } from '../bindings.js';
import { checked } from '../forms.js';
import { jobBlocked, selectedStore } from '../state.js';
import type { Ctx, Scope } from './ctx.js';
import { listBindings } from './list-bindings.js';
import { openSearch, searchBlocked } from './search-controller.js';
import { addToStore } from './sources-controller.js';

// The stores pane: create, delete (confirmation names the directory; source files are kept),
// roles, Test search, open the sources.

export function storesScope(ctx: Ctx, openCreate: () => Promise<void>): Scope {
  const s = ctx.state;
  const noStore = () => (selectedStore(s) ? undefined : 'no store selected');
  const bindings: Binding[] = [
    {
      action: 'stores.create',
      handler: openCreate,
      disabledReason: () => (s.job ? jobBlocked(s, selectedStore(s)) : undefined),
    },
    {
      action: 'stores.delete',
      handler: () => confirmDelete(ctx),
      disabledReason: () =>
        noStore() ?? (s.job?.storeId === selectedStore(s)?.id ? jobBlocked(s, selectedStore(s)) : undefined),
    },
    {
      action: 'stores.roles',
      handler: () => openRoles(ctx),
      disabledReason: () =>
        noStore() ?? (s.job?.storeId === selectedStore(s)?.id ? jobBlocked(s, selectedStore(s)) : undefined),
    },
    {
      action: 'stores.open',
      handler: () => {
        s.focus = 'sources';
        s.sourceSel = 0;
      },
      disabledReason: noStore,
    },
    // The sources pane's empty text says "press f to add a folder": the keys work from here too.
    ...(['folder', 'files'] as const).map((mode) => ({
      action: mode === 'folder' ? ('stores.addFolder' as const) : ('stores.addFiles' as const),
      handler: () => {
        s.focus = 'sources';
        return addToStore(ctx, mode);
      },
      disabledReason: () => noStore() ?? jobBlocked(s, selectedStore(s)),
      hint: false,
    })),
    { action: 'stores.testSearch', handler: () => openSearch(ctx), disabledReason: () => searchBlocked(s) },
    ...listBindings({
      count: () => s.stores.length,
      get: () => s.storeSel,
      set: (i) => {
        if (i !== s.storeSel) s.sourceSel = 0;
        s.storeSel = i;
      },
    }),
  ];
  return { chain: 'stores', groups: [{ title: 'Stores pane', bindings }] };
}

function confirmDelete(ctx: Ctx) {
  const store = selectedStore(ctx.state)!;
  const dir = ctx.services.storeDir(store.id);
  const lines: { text: string; tone?: 'path' | 'statusWarning' | 'dimmed' }[] = [
    { text: `Delete the knowledge store "${store.name}"?` },
    { text: `This removes the directory ${dir} (its index and configuration).`, tone: 'path' },
    { text: `Source files are kept: the ${store.sources.length} configured source(s) are never touched.` },
  ];
  if (store.roles.length > 0)
    lines.push({
      text: `It is attached to the ${store.roles.join(' and ')} role(s); deleting detaches it.`,
      tone: 'statusWarning',
    });
  if (store.type === 'qdrant')
    lines.push({
      text: 'The vectors of its sources are removed from the Qdrant collection; the Qdrant service itself is not touched.',
      tone: 'dimmed',
    });
  ctx.push({
    kind: 'confirm',
    title: 'Delete store',
    lines,
    yes: `delete "${store.name}"`,
    onYes: async () => {
      const removed = await ctx.op(`Deleting store "${store.name}"…`, () =>
        ctx.services.deleteStore(store.id),
      );
      if (removed === undefined) return;
      await ctx.refresh();
      ctx.state.focus = 'stores';
      ctx.notify(`Deleted store "${store.name}": removed ${removed}; source files were not touched.`, 'ok');
    },
  });
}

function openRoles(ctx: Ctx) {
  const store = selectedStore(ctx.state)!;
  const dialog = {
    kind: 'roles' as const,
    storeId: store.id,
    storeName: store.name,
    form: {
      focus: 'text',
      fields: [
        {
          kind: 'note' as const,
          id: 'n',
          text: 'Profiles assigned to these roles retrieve from this store.',
        },
        { kind: 'check' as const, id: 'text', label: 'Text role', value: store.roles.includes('text') },
        { kind: 'check' as const, id: 'coding', label: 'Coding role', value: store.roles.includes('coding') },
        {
          kind: 'check' as const,
          id: 'autonomous',
          label: 'Autonomous workflows (agent, planning, swarm, scheduled) may retrieve from it',
          value: store.autonomous,
        },
        { kind: 'button' as const, id: 'save', label: 'Save' },
      ],
    },
  };
  ctx.push(dialog);
}

export async function saveRoles(
  ctx: Ctx,
  d: { storeId: string; storeName: string; form: Parameters<typeof checked>[0] },
) {
  const roles: Role[] = [
    ...(checked(d.form, 'text') ? ['text' as const] : []),
    ...(checked(d.form, 'coding') ? ['coding' as const] : []),
  ];
  const ok = await ctx.op('Saving roles…', () =>
    ctx.services.setStoreRoles(d.storeId, roles, checked(d.form, 'autonomous')),
  );
  if (ok === undefined) return;
  ctx.pop();
  await ctx.refresh();
  ctx.notify(
    `Store "${d.storeName}": roles ${[...roles].sort().join(', ') || 'none'}, autonomous workflows ${checked(d.form, 'autonomous') ? 'on' : 'off'}.`,
    'ok',
  );
}
