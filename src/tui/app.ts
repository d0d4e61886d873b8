import { isKorttyError } from '../errors.js';
import type { ActionName } from './actions.js';
import { ACTIONS, CHAINS } from './actions.js';
import { describe, findBinding, hints } from './bindings.js';
import type { Ctx, Scope } from './controllers/ctx.js';
import { createJobController } from './controllers/job-controller.js';
import { currentScope, helpFor } from './controllers/scopes.js';
import { editorCommand } from './editor.js';
import { type Keymap, keyLabel, matchKeys } from './keymap.js';
import { editLine } from './line-editor.js';
import type { KeyEvent, ScreenPort } from './screen.js';
import type { Services } from './services.js';
import { idleMarker, type LoopStats } from './signal.js';
import { type AppState, type Dialog, initialState, type Level } from './state.js';
import { sanitize } from './text.js';
import type { Theme } from './theme.js';
import { renderApp } from './views/layout.js';
import type { ViewContext } from './views/view-context.js';

// The pane's loop: keys → binding records → handlers → state → pure views → one painted frame.
// Work never runs here: jobs and model tasks are child processes, file and engine calls are async.
// In-flight operations are counted so the test idle marker is written only when all are done.

export interface AppOptions {
  services: Services;
  keymap: Keymap;
  theme: Theme;
  screen: ScreenPort;
  env: NodeJS.ProcessEnv;
  test?: boolean;
  loop?: LoopStats;
  pollMs?: number;
  /** A warning shown on the first frame (until the first key), e.g. an unknown config.json key. */
  notice?: string;
}

const RENDER_GAP_MS = 25;
/** Job progress arrives per document; ten frames a second are plenty for a progress line. */
const PROGRESS_GAP_MS = 100;

export function runApp(o: AppOptions): Promise<number> {
  const state: AppState = initialState(o.screen.size(), o.keymap.name, o.theme.name);
  if (o.notice) state.message = { text: sanitize(o.notice), level: 'warning' };
  let pending = 0;
  let keys = 0;
  /** The line editor's kill buffer (C-w, C-u, C-k… then C-y), shared by every input, as in readline. */
  let kill = '';
  /** The keys of a sequence typed so far (C-x of C-x C-c). */
  let typed: string[] = [];
  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = 0;
  let lastPaint = 0;
  let closed = false;
  /** A frame was painted while work was in flight: the idle marker is still owed. */
  let owed = false;
  let exit: (code: number) => void = () => {};
  const exited = new Promise<number>((r) => {
    exit = r;
  });

  const paint = () => {
    timer = undefined;
    if (closed) return;
    const t0 = performance.now();
    lastPaint = t0;
    const scope = currentScope(ctx);
    const help = state.dialogs.at(-1);
    if (help?.kind === 'help') help.rows = helpFor(ctx);
    const view: ViewContext = { state, hints: hints(scope.groups, o.keymap), key: keyOf, now: Date.now() };
    o.screen.paint(renderApp(view, { disabledFields: scope.disabledFields ?? {} }));
    o.loop?.work('paint', performance.now() - t0);
    if (!o.test) return;
    if (pending === 0) {
      o.screen.write(idleMarker(++seq, keys));
      owed = false;
    } else owed = true;
  };
  const render = (gap = RENDER_GAP_MS) => {
    if (closed) return;
    const at = Math.max(performance.now(), lastPaint + gap);
    // A key's repaint must not wait behind a slower progress repaint.
    if (timer) {
      if (timerAt <= at) return;
      clearTimeout(timer);
    }
    timerAt = at;
    timer = setTimeout(paint, at - performance.now());
  };

  const keyOf = (a: ActionName) => keyLabel(o.keymap.keys[a][0]!);

  const settle = (changed: boolean) => {
    pending--;
    if (changed || (pending === 0 && owed)) render();
  };
  const track = async <T>(fn: () => Promise<T>): Promise<T> => {
    pending++;
    try {
      return await fn();
    } finally {
      settle(true);
    }
  };
  const notify = (text: string, level: Level = 'info') => {
    state.message = { text, level };
    render();
  };
  const fail = (title: string, err: unknown) => {
    const text = isKorttyError(err) ? err.message : ((err as Error)?.message ?? String(err));
    ctx.push({ kind: 'message', title, text, level: 'error' });
  };
  let lastDamaged = '';
  const refresh = async () => {
    const keepStore = state.stores[state.storeSel]?.id;
    const [stores, models] = await Promise.all([o.services.loadStores(), o.services.installedModels()]);
    state.stores = stores;
    state.models = models;
    state.external = await o.services.externalJobs(jobs.ownPids()).catch(() => []);
    const idx = stores.findIndex((s) => s.id === keepStore);
    state.storeSel = Math.max(0, Math.min(idx >= 0 ? idx : state.storeSel, stores.length - 1));
    state.sourceSel = Math.max(
      0,
      Math.min(state.sourceSel, (stores[state.storeSel]?.sources.length ?? 1) - 1),
    );
    state.loaded = true;
    // A store whose store.json is damaged is not in the list: say so, with its file and field.
    const damaged = (o.services.damagedStores?.() ?? []).join('; ');
    if (damaged && damaged !== lastDamaged) notify(`damaged store: ${damaged}`, 'error');
    lastDamaged = damaged;
    if (state.tab === 'runs') {
      const runs = await o.services.loadRuns(stores);
      state.runs = { ...runs, selected: Math.min(state.runs.selected, Math.max(0, runs.records.length - 1)) };
    }
  };
  const ctx: Ctx = {
    state,
    services: o.services,
    keymap: o.keymap,
    jobs: undefined as never,
    render: () => render(),
    track,
    async op(label, fn) {
      if (label) state.busy = label;
      render();
      try {
        return await track(fn);
      } catch (err) {
        fail(label ? label.replace(/…$/, ' failed') : 'Failed', err);
        return undefined;
      } finally {
        if (label && state.busy === label) state.busy = undefined;
      }
    },
    push(d: Dialog) {
      state.dialogs.push(d);
      render();
    },
    pop(d?: Dialog) {
      const i = d ? state.dialogs.lastIndexOf(d) : state.dialogs.length - 1;
      if (i >= 0) state.dialogs.splice(i, 1);
      render();
    },
    notify,
    fail,
    refresh,
    async openEditor(path, line) {
      const cmd = editorCommand(o.env, path, line);
      const ok = await track(() => o.screen.exec(cmd.file, cmd.args));
      notify(
        ok ? `Opened ${path}${line ? `:${line}` : ''} in ${cmd.file}` : `${cmd.file} could not open ${path}`,
        ok ? 'info' : 'error',
      );
    },
    quit() {
      exit(0);
    },
  };
  const jobs = createJobController({
    state,
    services: o.services,
    render: () => render(),
    renderProgress: () => render(PROGRESS_GAP_MS),
    push: ctx.push,
    removeDialogs(pred) {
      state.dialogs = state.dialogs.filter((d) => !pred(d));
      render();
    },
    notify,
    fail,
    refresh: () => track(refresh),
    op: ctx.op,
    loop: o.loop,
  });
  ctx.jobs = jobs;

  const onKey = (k: KeyEvent) => {
    const t0 = performance.now();
    try {
      handleKey(k);
    } finally {
      o.loop?.work('key', performance.now() - t0);
    }
  };
  const handleKey = (k: KeyEvent) => {
    keys++;
    const scope: Scope = currentScope(ctx);
    const chain = CHAINS[scope.chain] ?? ['global'];
    if (typed.length > 0) return sequenceKey(scope, chain, k);
    // A focused text input takes the readline editing keys before the keymap does.
    const edited = scope.text ? editLine(scope.text.get(), k, kill) : undefined;
    if (scope.text && edited) {
      kill = edited.kill;
      scope.text.set({ text: edited.text, cursor: edited.cursor });
      return render();
    }
    const m = matchKeys(o.keymap, chain, [k.full]);
    if (m && 'prefix' in m) {
      typed = [k.full];
      state.message = { text: `${keyLabel(m.prefix)} …`, level: 'info' };
      return render();
    }
    runAction(scope, m && 'action' in m ? m.action : undefined);
  };
  /** The next key of a sequence: completes it, waits for more, or ends it ("… is not bound"). */
  const sequenceKey = (scope: Scope, chain: readonly string[], k: KeyEvent) => {
    if (k.full === 'escape' || k.full === 'C-g') {
      typed = [];
      state.message = undefined;
      return render();
    }
    const m = matchKeys(o.keymap, chain, [...typed, k.full]);
    if (m && 'prefix' in m) {
      typed.push(k.full);
      state.message = { text: `${keyLabel(m.prefix)} …`, level: 'info' };
      return render();
    }
    typed = [];
    state.message = undefined;
    if (m && 'action' in m) return runAction(scope, m.action);
    notify(`${keyLabel(m && 'unbound' in m ? m.unbound : k.full)} is not bound here`, 'warning');
  };
  const runAction = (scope: Scope, action: ActionName | undefined) => {
    const binding = action ? findBinding(scope.groups, action) : undefined;
    if (!binding) return render();
    const why = binding.disabledReason?.();
    if (why) {
      const what = ACTIONS[binding.action].hint;
      notify(`${what[0]!.toUpperCase()}${what.slice(1)}: ${why}`, 'warning');
      return;
    }
    if (state.message && state.message.level !== 'busy') state.message = undefined;
    void track(async () => {
      try {
        await binding.handler();
      } catch (err) {
        fail(describe(binding), err);
      }
    });
  };

  o.screen.onKey(onKey);
  o.screen.onResize(() => {
    state.size = o.screen.size();
    render();
  });
  const ticker = setInterval(() => {
    const top = state.dialogs.at(-1);
    if (state.job || state.busy || (top?.kind === 'assistant' && top.task)) render();
  }, 1000);
  const poll = setInterval(() => {
    if (pending > 0) return;
    const snapshot = () => JSON.stringify([state.stores, state.external, state.models]);
    const before = snapshot();
    pending++;
    refresh().then(
      () => settle(snapshot() !== before),
      () => settle(false),
    );
  }, o.pollMs ?? 3000);
  ticker.unref();
  poll.unref();

  void track(refresh).catch((err) => fail('Loading stores failed', err));
  paint();

  return exited.then(async (code) => {
    closed = true;
    clearInterval(ticker);
    clearInterval(poll);
    if (timer) clearTimeout(timer);
    o.loop?.stop();
    o.screen.destroy();
    await o.services.close().catch(() => {});
    return code;
  });
}
