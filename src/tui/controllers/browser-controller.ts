import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Binding } from '../bindings.js';
import { clampCursor, type LineState } from '../line-editor.js';
import type { BrowserDialog } from '../state.js';
import { browserRows } from '../views/browser-view.js';
import type { Ctx, Scope } from './ctx.js';
import { listBindings } from './list-bindings.js';

// The file browser: navigate, mark files, type a path, choose. Symbolic links are shown but never
// entered or chosen (the scan would refuse them too).

let lastDir: string | undefined;

export async function openBrowser(
  ctx: Ctx,
  mode: BrowserDialog['mode'],
  purpose: BrowserDialog['purpose'],
  onChoose: BrowserDialog['onChoose'],
) {
  const d: BrowserDialog = {
    kind: 'browser',
    mode,
    purpose,
    dir: lastDir ?? process.cwd(),
    entries: [],
    selected: 0,
    marked: [],
    onChoose,
  };
  ctx.push(d);
  await load(ctx, d, d.dir);
}

async function load(ctx: Ctx, d: BrowserDialog, dir: string, select?: string) {
  let entries: BrowserDialog['entries'];
  try {
    entries = await ctx.track(() => ctx.services.listDir(dir));
  } catch (err) {
    d.error = `${dir}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
    return;
  }
  d.dir = dir;
  lastDir = dir;
  d.entries = entries;
  d.marked = [];
  d.error = undefined;
  const rows = browserRows(d);
  d.selected = Math.max(0, select ? rows.findIndex((r) => r.entry?.name === select) : 0);
}

function highlighted(d: BrowserDialog) {
  return browserRows(d)[d.selected];
}

function chooseBlocked(d: BrowserDialog): string | undefined {
  const r = highlighted(d);
  if (d.mode === 'folder') {
    if (!r) return 'nothing highlighted';
    if (!r.entry || r.entry.type === 'dir') return undefined;
    return r.entry.type === 'symlink'
      ? 'symbolic links are never followed; choose the real folder'
      : 'choose a folder (use Add files for single files)';
  }
  if (d.mode === 'files' && d.marked.length > 0) return undefined;
  if (r?.entry?.type === 'file') return undefined;
  return r?.entry?.type === 'symlink'
    ? 'symbolic links are never followed; choose the real file'
    : 'highlight or mark a file';
}

async function choose(ctx: Ctx, d: BrowserDialog) {
  const r = highlighted(d);
  let paths: string[];
  if (d.mode === 'folder') paths = [r?.entry ? join(d.dir, r.entry.name) : d.dir];
  else if (d.mode === 'files' && d.marked.length > 0) paths = d.marked.map((n) => join(d.dir, n));
  else paths = [join(d.dir, r!.entry!.name)];
  ctx.pop(d);
  await d.onChoose(paths);
}

async function gotoTyped(ctx: Ctx, d: BrowserDialog) {
  const typed = (d.goto ?? '').trim();
  const path = isAbsolute(typed) ? resolve(typed) : resolve(d.dir, typed);
  const kind = await ctx.track(() => ctx.services.pathKind(path));
  d.goto = undefined;
  if (kind === 'dir') await load(ctx, d, path);
  else if (kind === 'file') await load(ctx, d, dirname(path), path.slice(dirname(path).length + 1));
  else if (kind === 'symlink') d.error = `${path} is a symbolic link; links are never followed`;
  else d.error = `${path}: ${kind === 'missing' ? 'does not exist' : 'not a file or folder'}`;
}

export function browserScope(ctx: Ctx, d: BrowserDialog): Scope {
  const bindings: Binding[] = [
    {
      action: 'browser.open',
      handler: async () => {
        if (d.goto !== undefined) return gotoTyped(ctx, d);
        const r = highlighted(d);
        if (!r) return;
        if (!r.entry) return choose(ctx, d);
        if (r.entry.type === 'dir') return load(ctx, d, join(d.dir, r.entry.name));
        if (r.entry.type === 'symlink') {
          d.error = `${r.entry.name} is a symbolic link to ${r.entry.target}; links are never followed`;
          return;
        }
        if (r.entry.type === 'file' && d.mode !== 'folder') return choose(ctx, d);
      },
    },
    {
      action: 'browser.parent',
      handler: () => load(ctx, d, dirname(d.dir), d.dir.slice(dirname(d.dir).length).replace(/^\//, '')),
    },
    {
      action: 'browser.mark',
      handler: () => {
        const e = highlighted(d)?.entry;
        if (!e) return;
        d.marked = d.marked.includes(e.name) ? d.marked.filter((n) => n !== e.name) : [...d.marked, e.name];
      },
      disabledReason: () =>
        d.mode !== 'files'
          ? 'marking is for Add files'
          : highlighted(d)?.entry?.type === 'file'
            ? undefined
            : 'only regular files can be marked',
    },
    { action: 'browser.choose', handler: () => choose(ctx, d), disabledReason: () => chooseBlocked(d) },
    {
      action: 'browser.goto',
      handler: () => {
        d.goto = '';
        d.gotoCursor = 0;
      },
    },
    {
      action: 'universal.back',
      description: 'Stop typing the path / close the browser',
      label: 'close',
      handler: () => {
        if (d.goto !== undefined) d.goto = undefined;
        else ctx.pop(d);
      },
    },
    ...listBindings({
      count: () => browserRows(d).length,
      get: () => d.selected,
      set: (i) => (d.selected = i),
      page: () => ctx.state.size.height - 8,
    }),
  ];
  return {
    chain: 'browser',
    groups: [{ title: 'File browser', bindings }],
    ...(d.goto !== undefined
      ? {
          text: {
            get: () => ({ text: d.goto ?? '', cursor: clampCursor(d.goto ?? '', d.gotoCursor) }),
            set: (s: LineState) => {
              d.goto = s.text;
              d.gotoCursor = s.cursor;
            },
          },
        }
      : {}),
  };
}
