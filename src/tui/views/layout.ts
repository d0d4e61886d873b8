import type { Hint } from '../bindings.js';
import type { AppState, Dialog } from '../state.js';
import { type Frame, fitFrame, type Line, overlay, type Seg, seg } from '../styled.js';
import { fitText, strWidth, truncate } from '../text.js';
import { assistantView } from './assistant-view.js';
import { browserView } from './browser-view.js';
import { levelRole } from './common.js';
import { confirmView, messageView } from './dialog-view.js';
import { addSourceView, createView, optionsView, rolesView } from './form-view.js';
import { helpView } from './help-view.js';
import { jobStatusSegs, scanView, summaryView } from './job-view.js';
import { reviewView } from './review-view.js';
import { runsTab } from './runs-view.js';
import { searchView } from './search-view.js';
import { sourcesPane } from './sources-view.js';
import { storesPane } from './stores-view.js';
import type { ViewContext } from './view-context.js';

// The whole screen, pure: title bar, the stores/sources panes or the runs tab, the status line,
// the hint bar, and the dialog stack drawn on top (centred). Exactly width × height.

export const MIN_WIDTH = 50;
export const MIN_HEIGHT = 14;

export interface LayoutExtras {
  /** Why a form button is disabled (keyed by field id), from the dialog's controller. */
  disabledFields: Record<string, string | undefined>;
}

export function renderApp(v: ViewContext, extras: LayoutExtras): Frame {
  const { width, height } = v.state.size;
  if (width < MIN_WIDTH || height < MIN_HEIGHT) {
    return fitFrame(
      [
        {
          segs: [
            seg(
              `Terminal too small (${width}×${height}); kortty-rag needs at least ${MIN_WIDTH}×${MIN_HEIGHT}.`,
              'statusWarning',
            ),
          ],
        },
      ],
      width,
      height,
    );
  }
  const mainH = height - 3;
  let main: Frame;
  if (v.state.tab === 'runs') main = runsTab(v, width, mainH);
  else {
    const n = v.state.stores.length;
    const storesH = Math.max(5, Math.min(n + 4, Math.floor(mainH * 0.4)));
    main = [...storesPane(v, width, storesH), ...sourcesPane(v, width, mainH - storesH)];
  }
  const s = v.state;
  const dialogs = s.dialogs.map((d) => dialogFrame(d, v, extras)).filter((f) => f.length > 0);
  const placed = dialogs.map((f) => {
    const fw = f[0] ? f[0].segs.reduce((n, x) => n + strWidth(x.text), 0) : 0;
    return {
      f,
      x: Math.max(0, Math.floor((width - fw) / 2)),
      y: Math.max(1, Math.floor((height - f.length) / 2)),
    };
  });
  // A message goes to the hint row when the status line is taken by a job or hidden by a dialog.
  const statusHidden = placed.some((p) => p.y + p.f.length > height - 2);
  const bottom =
    s.message && (s.job || statusHidden) ? messageLine(s.message, width) : hintBar(v.hints, width);
  let frame = fitFrame([titleBar(s, width), ...main, statusLine(v, width), bottom], width, height);
  for (const p of placed) frame = overlay(frame, p.f, p.x, p.y);
  return frame;
}

function dialogFrame(d: Dialog, v: ViewContext, extras: LayoutExtras): Frame {
  switch (d.kind) {
    case 'create':
      return createView(d, v, extras.disabledFields);
    case 'addSource':
      return addSourceView(d, v, extras.disabledFields);
    case 'options':
      return optionsView(d, v, extras.disabledFields);
    case 'roles':
      return rolesView(d, v, extras.disabledFields);
    case 'assistant':
      return assistantView(d, v);
    case 'browser':
      return browserView(d, v);
    case 'scan':
      return v.state.job
        ? scanView(v.state.job, v, [...v.state.job.adding.map((a) => a.path), ...sourcePaths(v.state)])
        : [];
    case 'review':
      return reviewView(d, v);
    case 'summary':
      return summaryView(d, v);
    case 'confirm':
      return confirmView(d, v);
    case 'message':
      return messageView(d, v);
    case 'search':
      return searchView(d, v);
    case 'help':
      return helpView(d, v);
  }
}

function sourcePaths(s: AppState): string[] {
  const store = s.stores.find((x) => x.id === s.job?.storeId);
  return (store?.sources ?? []).filter((x) => s.job?.sourceIds.includes(x.id)).map((x) => x.path);
}

function titleBar(s: AppState, width: number): Line {
  const tab = (n: string, label: string, active: boolean): Seg[] => [
    seg(` ${n} ${label} `, active ? 'tabActive' : 'tabInactive'),
    seg(' '),
  ];
  const right = ` keymap ${s.keymapName} · theme ${s.themeName} `;
  const left: Seg[] = [
    seg(' kortty-rag ', 'title'),
    seg(' '),
    ...tab('1', 'Stores', s.tab === 'stores'),
    ...tab('2', 'Runs', s.tab === 'runs'),
  ];
  const used = left.reduce((n, x) => n + strWidth(x.text), 0);
  const room = width - used;
  return { segs: [...left, seg(room > strWidth(right) ? fitText(right, room, 'right') : '', 'dimmed')] };
}

function statusLine(v: ViewContext, width: number): Line {
  const s = v.state;
  if (s.job) return { segs: jobStatusSegs(s.job, width, v.key('job.cancel')) };
  if (s.busy) return { segs: [seg(` ${truncate(s.busy, width - 2)}`, 'statusBusy')] };
  if (s.message) return messageLine(s.message, width);
  const ext = s.external[0];
  if (ext)
    return {
      segs: [
        seg(
          ` another process (pid ${ext.pid}) is syncing "${ext.storeName}" · ${ext.state} ${ext.percent}%`,
          'statusBusy',
        ),
      ],
    };
  const sources = s.stores.reduce((n, x) => n + x.sources.length, 0);
  const problems = s.stores.reduce((n, x) => n + x.sources.reduce((m, y) => m + y.problems, 0), 0);
  const skipped = s.stores.reduce((n, x) => n + x.sources.reduce((m, y) => m + y.skipped, 0), 0);
  return {
    segs: [
      seg(` ${s.stores.length} store(s) · ${sources} source(s)`, 'dimmed'),
      seg(problems > 0 ? ` · ${problems} problem(s)` : '', 'statusWarning'),
      seg(skipped > 0 ? ` · ${skipped} skipped` : '', 'dimmed'),
      seg(s.loaded ? ' · ready' : ' · loading…', 'dimmed'),
    ],
  };
}

function messageLine(m: NonNullable<AppState['message']>, width: number): Line {
  return { segs: [seg(` ${truncate(m.text, width - 2)}`, levelRole(m.level))] };
}

function hintBar(hints: readonly Hint[], width: number): Line {
  // "? help" is always shown: everything else is one key away from it.
  const help = hints.find((h) => h.label === 'help');
  const cost = (h: Hint) => strWidth(h.key) + strWidth(h.label) + 3;
  const segs: Seg[] = [];
  let used = help ? cost(help) : 0;
  for (const h of hints) {
    if (h === help) continue;
    if (used + cost(h) > width) break;
    segs.push(seg(` ${h.key}`, 'key'), seg(` ${h.label} `, 'description'));
    used += cost(h);
  }
  if (help) segs.push(seg(` ${help.key}`, 'key'), seg(` ${help.label} `, 'description'));
  return { segs };
}
