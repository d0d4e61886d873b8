import type { SearchMode } from '../../app/search.js';
import type { Binding } from '../bindings.js';
import { clampCursor } from '../line-editor.js';
import { type AppState, type SearchDialog, selectedStore } from '../state.js';
import type { Ctx, Scope } from './ctx.js';
import { listBindings } from './list-bindings.js';

// Test search: retrieval only (nothing goes to a chat model). The first search of a session loads
// the store's embedding model in this process (a few seconds); the dialog says so meanwhile.

const MODES: SearchMode[] = ['hybrid', 'vector', 'lexical'];
let searchedOnce = false;

export function searchBlocked(s: AppState): string | undefined {
  const store = selectedStore(s);
  if (!store) return 'no store selected';
  if (!store.sources.some((x) => x.enabled && x.chunks > 0))
    return `store "${store.name}" has no enabled, indexed source yet`;
  return undefined;
}

export function openSearch(ctx: Ctx) {
  const store = selectedStore(ctx.state)!;
  ctx.push({
    kind: 'search',
    storeId: store.id,
    storeName: store.name,
    query: '',
    focus: 'query',
    mode: 'hybrid',
    selected: 0,
    scroll: 0,
  });
}

async function run(ctx: Ctx, d: SearchDialog) {
  const store = ctx.state.stores.find((s) => s.id === d.storeId);
  if (!store) {
    d.error = `store "${d.storeName}" no longer exists`;
    return;
  }
  const query = d.query.trim();
  d.busy = searchedOnce
    ? 'Searching…'
    : 'Searching… (the first search loads the embedding model, a few seconds)';
  d.error = undefined;
  ctx.render();
  const t0 = performance.now();
  try {
    const res = await ctx.track(() => ctx.services.search(store, query, d.mode));
    searchedOnce = true;
    d.result = {
      excerpts: res.excerpts,
      block: res.block,
      ms: performance.now() - t0,
      query,
      shapedQuery: res.shapedQuery,
      mode: d.mode,
    };
    d.selected = 0;
    d.scroll = 0;
    if (res.excerpts.length > 0) d.focus = 'results';
  } catch (err) {
    d.error = (err as Error).message;
  } finally {
    d.busy = undefined;
  }
}

export function searchScope(ctx: Ctx, d: SearchDialog): Scope {
  const busy = () => (d.busy ? 'a search is running' : undefined);
  const noResults = () => (d.result && d.result.excerpts.length > 0 ? undefined : 'no results yet');
  if (d.focus === 'query') {
    const bindings: Binding[] = [
      {
        action: 'search.run',
        handler: () => run(ctx, d),
        disabledReason: () => busy() ?? (d.query.trim() ? undefined : 'type a query first'),
      },
      {
        action: 'search.focusResults',
        handler: () => {
          d.focus = 'results';
        },
        disabledReason: noResults,
      },
      {
        action: 'universal.back',
        description: 'Close Test search',
        label: 'close',
        handler: () => ctx.pop(d),
      },
    ];
    return {
      chain: 'search',
      groups: [{ title: 'Test search: query', bindings }],
      text: {
        get: () => ({ text: d.query, cursor: clampCursor(d.query, d.queryCursor) }),
        set: (s) => {
          d.query = s.text;
          d.queryCursor = s.cursor;
        },
      },
    };
  }
  const excerpt = () => d.result?.excerpts[d.selected];
  const bindings: Binding[] = [
    {
      action: 'search.openInEditor',
      handler: async () => {
        const e = excerpt()!;
        await ctx.openEditor(e.path, e.lineStart);
      },
      disabledReason: () => noResults(),
    },
    {
      action: 'search.editQuery',
      handler: () => {
        d.focus = 'query';
      },
    },
    {
      action: 'search.cycleMode',
      handler: async () => {
        d.mode = MODES[(MODES.indexOf(d.mode) + 1) % MODES.length]!;
        if (d.query.trim()) await run(ctx, d);
      },
      disabledReason: busy,
    },
    { action: 'universal.back', description: 'Close Test search', label: 'close', handler: () => ctx.pop(d) },
    ...listBindings({
      count: () => d.result?.excerpts.length ?? 0,
      get: () => d.selected,
      set: (i) => (d.selected = i),
    }),
    // Page keys scroll the block rather than the excerpt list.
    {
      action: 'list.pageDown',
      description: 'Scroll the block down',
      handler: () => {
        d.scroll += Math.max(1, ctx.state.size.height - 12);
      },
    },
    {
      action: 'list.pageUp',
      description: 'Scroll the block up',
      handler: () => {
        d.scroll = Math.max(0, d.scroll - Math.max(1, ctx.state.size.height - 12));
      },
    },
  ];
  // The later page bindings win over listBindings' ones.
  const deduped = bindings.filter((b, i) => bindings.findLastIndex((x) => x.action === b.action) === i);
  return { chain: 'searchResults', groups: [{ title: 'Test search: results', bindings: deduped }] };
}
