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

/** The loop's bookkeeping, shared by the phases below. */
interface Loop {
  o: AppOptions;
  state: AppState;
  ctx: Ctx;
  /** Operations in flight (the idle marker waits for none). */
  pending: number;
  keys: number;
  seq: number;
  timer: NodeJS.Timeout | undefined;
  timerAt: number;
  lastPaint: number;
  closed: boolean;
  /** A frame was painted while work was in flight: the idle marker is still owed. */
  owed: boolean;
  /** The line editor's kill buffer (C-w, C-u, C-k… then C-y), shared by every input, as in readline. */
  kill: string;
  /** The keys of a sequence typed so far (C-x of C-x C-c). */
  typed: string[];
  /** The damaged stores last reported (each change is said once). */
  lastDamaged: string;
}

export function runApp(o: AppOptions): Promise<number> {
  const l: Loop = {
    o,
    state: initialState(o.screen.size(), o.keymap.name, o.theme.name),
    ctx: undefined as never,
    pending: 0,
    keys: 0,
    seq: 0,
    timer: undefined,
    timerAt: 0,
    lastPaint: 0,
    closed: false,
    owed: false,
    kill: '',
    typed: [],
    lastDamaged: '',
  };
  if (o.notice) l.state.message = { text: sanitize(o.notice), level: 'warning' };
  let exit: (code: number) => void = () => {};
  const exited = new Promise<number>((r) => {
    exit = r;
  });
  l.ctx = createCtx(l, () => exit(0));
  l.ctx.jobs = createJobs(l);

  o.screen.onKey((k) => onKey(l, k));
  o.screen.onResize(() => {
    l.state.size = o.screen.size();
    render(l);
  });
  const timers = startTimers(l);
  void track(l, () => refresh(l)).catch((err) => l.ctx.fail('Loading stores failed', err));
  paint(l);

  return exited.then(async (code) => {
    l.closed = true;
    for (const t of timers) clearInterval(t);
    if (l.timer) clearTimeout(l.timer);
    o.loop?.stop();
    o.screen.destroy();
    await o.services.close().catch(() => {});
    return code;
  });
}

// --- painting -------------------------------------------------------------------------------
function paint(l: Loop): void {
  const { o, state } = l;
  l.timer = undefined;
  if (l.closed) return;
  const t0 = performance.now();
  l.lastPaint = t0;
  const scope = currentScope(l.ctx);
  const help = state.dialogs.at(-1);
  if (help?.kind === 'help') help.rows = helpFor(l.ctx);
  const keyOf = (a: ActionName) => keyLabel(o.keymap.keys[a][0]!);
  const view: ViewContext = { state, hints: hints(scope.groups, o.keymap), key: keyOf, now: Date.now() };
  o.screen.paint(renderApp(view, { disabledFields: scope.disabledFields ?? {} }));
  o.loop?.work('paint', performance.now() - t0);
  if (!o.test) return;
  if (l.pending === 0) {
    o.screen.write(idleMarker(++l.seq, l.keys));
    l.owed = false;
  } else l.owed = true;
}

function render(l: Loop, gap = RENDER_GAP_MS): void {
  if (l.closed) return;
  const at = Math.max(performance.now(), l.lastPaint + gap);
  // A key's repaint must not wait behind a slower progress repaint.
  if (l.timer) {
    if (l.timerAt <= at) return;
    clearTimeout(l.timer);
  }
  l.timerAt = at;
  l.timer = setTimeout(() => paint(l), at - performance.now());
}

// --- work in flight -------------------------------------------------------------------------
function settle(l: Loop, changed: boolean): void {
  l.pending--;
  if (changed || (l.pending === 0 && l.owed)) render(l);
}

async function track<T>(l: Loop, fn: () => Promise<T>): Promise<T> {
  l.pending++;
  try {
    return await fn();
  } finally {
    settle(l, true);
  }
}

/** Stores, models and other processes' jobs (and the runs, on their tab), keeping the selection. */
async function refresh(l: Loop): Promise<void> {
  const { o, state } = l;
  const keepStore = state.stores[state.storeSel]?.id;
  const [stores, models] = await Promise.all([o.services.loadStores(), o.services.installedModels()]);
  state.stores = stores;
  state.storeHealth = o.services.storeHealth?.() ?? {};
  state.models = models;
  state.external = await o.services.externalJobs(l.ctx.jobs.ownPids()).catch(() => []);
  const idx = stores.findIndex((s) => s.id === keepStore);
  state.storeSel = Math.max(0, Math.min(idx >= 0 ? idx : state.storeSel, stores.length - 1));
  state.sourceSel = Math.max(0, Math.min(state.sourceSel, (stores[state.storeSel]?.sources.length ?? 1) - 1));
  state.loaded = true;
  // A store whose store.json is damaged is not in the list: say so, with its file and field.
  const damaged = (o.services.damagedStores?.() ?? []).join('; ');
  if (damaged && damaged !== l.lastDamaged) l.ctx.notify(`damaged store: ${damaged}`, 'error');
  l.lastDamaged = damaged;
  if (state.tab === 'runs') {
    const runs = await o.services.loadRuns(stores);
    state.runs = { ...runs, selected: Math.min(state.runs.selected, Math.max(0, runs.records.length - 1)) };
  }
}

/** Repaints each second while something shows a clock, and polls stores and jobs every pollMs. */
function startTimers(l: Loop): NodeJS.Timeout[] {
  const { state } = l;
  const ticker = setInterval(() => {
    const top = state.dialogs.at(-1);
    if (state.job || state.busy || (top?.kind === 'assistant' && top.task)) render(l);
  }, 1000);
  const poll = setInterval(() => {
    if (l.pending > 0) return;
    const snapshot = () => JSON.stringify([state.stores, state.external, state.models, state.storeHealth]);
    const before = snapshot();
    l.pending++;
    refresh(l).then(
      () => settle(l, snapshot() !== before),
      () => settle(l, false),
    );
  }, l.o.pollMs ?? 3000);
  ticker.unref();
  poll.unref();
  return [ticker, poll];
}

// --- what controllers may use ---------------------------------------------------------------
function createCtx(l: Loop, quit: () => void): Ctx {
  const { o, state } = l;
  const notify = (text: string, level: Level = 'info') => {
    state.message = { text, level };
    render(l);
  };
  const ctx: Ctx = {
    state,
    services: o.services,
    keymap: o.keymap,
    jobs: undefined as never,
    render: () => render(l),
    track: (fn) => track(l, fn),
    async op(label, fn) {
      if (label) state.busy = label;
      render(l);
      try {
        return await track(l, fn);
      } catch (err) {
        ctx.fail(label ? label.replace(/…$/, ' failed') : 'Failed', err);
        return undefined;
      } finally {
        if (label && state.busy === label) state.busy = undefined;
      }
    },
    push(d: Dialog) {
      state.dialogs.push(d);
      render(l);
    },
    pop(d?: Dialog) {
      const i = d ? state.dialogs.lastIndexOf(d) : state.dialogs.length - 1;
      if (i >= 0) state.dialogs.splice(i, 1);
      render(l);
    },
    notify,
    fail(title: string, err: unknown) {
      const text = isKorttyError(err) ? err.message : ((err as Error)?.message ?? String(err));
      ctx.push({ kind: 'message', title, text, level: 'error' });
    },
    refresh: () => refresh(l),
    async openEditor(path, line) {
      const cmd = editorCommand(o.env, path, line);
      const ok = await track(l, () => o.screen.exec(cmd.file, cmd.args));
      notify(
        ok ? `Opened ${path}${line ? `:${line}` : ''} in ${cmd.file}` : `${cmd.file} could not open ${path}`,
        ok ? 'info' : 'error',
      );
    },
    quit,
  };
  return ctx;
}

function createJobs(l: Loop) {
  const { ctx, state } = l;
  return createJobController({
    state,
    services: l.o.services,
    render: () => render(l),
    renderProgress: () => render(l, PROGRESS_GAP_MS),
    push: ctx.push,
    removeDialogs(pred) {
      state.dialogs = state.dialogs.filter((d) => !pred(d));
      render(l);
    },
    notify: ctx.notify,
    fail: ctx.fail,
    refresh: () => track(l, () => refresh(l)),
    op: ctx.op,
    loop: l.o.loop,
  });
}

// --- keys -----------------------------------------------------------------------------------
function onKey(l: Loop, k: KeyEvent): void {
  const t0 = performance.now();
  try {
    handleKey(l, k);
  } finally {
    l.o.loop?.work('key', performance.now() - t0);
  }
}

function handleKey(l: Loop, k: KeyEvent) {
  l.keys++;
  const scope: Scope = currentScope(l.ctx);
  const chain = CHAINS[scope.chain] ?? ['global'];
  if (l.typed.length > 0) return sequenceKey(l, scope, chain, k);
  // A focused text input takes the readline editing keys before the keymap does.
  const edited = scope.text ? editLine(scope.text.get(), k, l.kill) : undefined;
  if (scope.text && edited) {
    l.kill = edited.kill;
    scope.text.set({ text: edited.text, cursor: edited.cursor });
    return render(l);
  }
  const m = matchKeys(l.o.keymap, chain, [k.full]);
  if (m && 'prefix' in m) {
    l.typed = [k.full];
    l.state.message = { text: `${keyLabel(m.prefix)} …`, level: 'info' };
    return render(l);
  }
  runAction(l, scope, m && 'action' in m ? m.action : undefined);
}

/** The next key of a sequence: completes it, waits for more, or ends it ("… is not bound"). */
function sequenceKey(l: Loop, scope: Scope, chain: readonly string[], k: KeyEvent) {
  if (k.full === 'escape' || k.full === 'C-g') {
    l.typed = [];
    l.state.message = undefined;
    return render(l);
  }
  const m = matchKeys(l.o.keymap, chain, [...l.typed, k.full]);
  if (m && 'prefix' in m) {
    l.typed.push(k.full);
    l.state.message = { text: `${keyLabel(m.prefix)} …`, level: 'info' };
    return render(l);
  }
  l.typed = [];
  l.state.message = undefined;
  if (m && 'action' in m) return runAction(l, scope, m.action);
  l.ctx.notify(`${keyLabel(m && 'unbound' in m ? m.unbound : k.full)} is not bound here`, 'warning');
}

function runAction(l: Loop, scope: Scope, action: ActionName | undefined) {
  const binding = action ? findBinding(scope.groups, action) : undefined;
  if (!binding) return render(l);
  const why = binding.disabledReason?.();
  if (why) {
    const what = ACTIONS[binding.action].hint;
    l.ctx.notify(`${what[0]!.toUpperCase()}${what.slice(1)}: ${why}`, 'warning');
    return;
  }
  if (l.state.message && l.state.message.level !== 'busy') l.state.message = undefined;
  void track(l, async () => {
    try {
      await binding.handler();
    } catch (err) {
      l.ctx.fail(describe(binding), err);
    }
  });
}
