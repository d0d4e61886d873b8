import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import type { StoreConfig } from '../../src/store/store-types.js';
import { ACTION_NAMES, CHAINS } from '../../src/tui/actions.js';
import { helpRows, hints } from '../../src/tui/bindings.js';
import { loadKeymap, loadTheme } from '../../src/tui/config-files.js';
import { createForm } from '../../src/tui/controllers/create-controller.js';
import { editorCommand, splitCommand } from '../../src/tui/editor.js';
import { fieldValue, focused, isVisible, moveFocus, toggle, typeText } from '../../src/tui/forms.js';
import {
  keyLabel,
  keymapConflicts,
  matchKeys,
  normalizeKey,
  normalizeKeySpec,
  parseKeymap,
} from '../../src/tui/keymap.js';
import { createPainter } from '../../src/tui/paint.js';
import { ROLES } from '../../src/tui/roles.js';
import { type AppState, initialState, type JobState } from '../../src/tui/state.js';
import { box, lineText, lineWidth, overlay, sliceLine, textLine } from '../../src/tui/styled.js';
import { columnWidths, renderTable, scrollOffset } from '../../src/tui/table.js';
import { fitText, sanitize, strWidth, truncate, truncateLeft, wrap } from '../../src/tui/text.js';
import { missingRoles, parseTheme } from '../../src/tui/theme.js';
import { rowLabel } from '../../src/tui/views/assistant-view.js';
import { helpLines } from '../../src/tui/views/help-view.js';
import { jobStatusSegs } from '../../src/tui/views/job-view.js';
import { renderApp } from '../../src/tui/views/layout.js';
import { summaryText } from '../../src/tui/views/review-view.js';
import type { ViewContext } from '../../src/tui/views/view-context.js';
import type { Review } from '../../src/types.js';
import { ROOT } from './harness.js';

// Pure presentation, table-tested: model in, styled lines out.

test('text: cell widths, truncation, fitting, wrapping, control characters', (t) => {
  const cases: [string, number][] = [
    ['abc', 3],
    ['漢字', 4],
    ['é', 1],
    ['e\u0301', 1],
    ['🍎x', 3],
  ];
  for (const [s, w] of cases) t.is(strWidth(s), w, s);
  t.is(truncate('abcdef', 4), 'abc…');
  t.is(truncate('漢字漢字', 5), '漢字…');
  t.is(truncateLeft('/a/b/c/file.md', 8), '…file.md');
  t.is(fitText('ab', 4, 'right'), '  ab');
  t.is(strWidth(fitText('漢字漢字', 5)), 5);
  t.deepEqual(wrap('one two three four', 9), ['one two', 'three', 'four']);
  t.is(sanitize('a\x1b[31mb\tc'), 'a\\x1b[31mb c');
});

test('styled: boxes, slices and overlays keep exact widths', (t) => {
  const b = box({
    title: 'T',
    width: 20,
    height: 5,
    body: [textLine('x'.repeat(40))],
    border: 'activeBorder',
  });
  t.is(b.length, 5);
  for (const l of b) t.is(lineWidth(l), 20);
  t.is(lineText(b[0]!).slice(0, 5), '┌─ T ');
  t.is(lineText(sliceLine(textLine('a漢b'), 0, 2)), 'a ', 'a wide char cut at the edge becomes a space');
  const base = [textLine('0123456789')];
  t.is(lineText(overlay(base, [textLine('XY')], 3, 0)[0]!), '012XY56789');
});

test('table: widths add up, the window follows the selection, the selected row is marked', (t) => {
  const cols = [
    { header: 'A', flex: 1 },
    { header: 'B', width: 5 },
    { header: 'C', flex: 2 },
  ];
  for (const w of [30, 57, 80, 133]) {
    const ws = columnWidths(cols, w);
    t.is(ws.reduce((a, b) => a + b, 0) + cols.length - 1 + 1, w);
  }
  t.is(scrollOffset(0, 100, 10), 0);
  t.is(scrollOffset(50, 100, 10), 45);
  t.is(scrollOffset(99, 100, 10), 90);
  const lines = renderTable({
    columns: cols,
    rows: Array.from({ length: 30 }, (_, i) => ({ cells: [`r${i}`, 'x', 'y'] })),
    width: 40,
    height: 6,
    selected: 20,
    focused: true,
  });
  t.is(lines.length, 6);
  const sel = lines.find((l) => l.over === 'selectedLineBg')!;
  t.true(lineText(sel).startsWith('›r20'));
});

test('keys: normalisation and labels', (t) => {
  const norm: [string, string | undefined][] = [
    ['q', 'q'],
    ['A', 'S-a'],
    ['ctrl+c', 'C-c'],
    ['Ctrl-C', 'C-c'],
    ['alt+n', 'M-n'],
    ['esc', 'escape'],
    ['return', 'enter'],
    ['shift+tab', 'S-tab'],
    ['pgdn', 'pagedown'],
    ['F1', 'f1'],
    ['?', '?'],
    ['ctrl+[', undefined],
    ['hyper+x', undefined],
  ];
  for (const [spec, want] of norm) t.is(normalizeKey(spec), want, spec);
  const labels: [string, string][] = [
    ['S-u', 'U'],
    ['C-c', 'ctrl-c'],
    ['M-S-f', 'alt-F'],
    ['escape', 'esc'],
    ['up', '↑'],
    ['S-tab', 'shift-tab'],
  ];
  for (const [k, want] of labels) t.is(keyLabel(k), want, k);
});

test('key sequences: "C-x C-c" waits after its prefix; a key cannot be both bound and a prefix', (t) => {
  t.is(normalizeKeySpec('ctrl+x ctrl+c'), 'C-x C-c');
  t.is(normalizeKeySpec(' '), 'space');
  t.is(normalizeKeySpec('C-x hyper+c'), undefined);
  t.is(keyLabel('C-x C-c'), 'ctrl-x ctrl-c');
  const emacs = loadKeymap('emacs', '/nonexistent-home', ROOT);
  const chain = CHAINS.stores!;
  t.deepEqual(matchKeys(emacs, chain, ['C-x']), { prefix: 'C-x' }, 'C-x alone does not quit');
  t.deepEqual(matchKeys(emacs, chain, ['C-x', 'C-c']), { action: 'universal.quit' });
  t.deepEqual(matchKeys(emacs, chain, ['C-x', 'q']), { unbound: 'C-x q' });
  t.deepEqual(matchKeys(emacs, chain, ['C-c']), { action: 'universal.quit' });
  t.is(matchKeys(emacs, chain, ['C-z']), undefined);
  const base = loadKeymap('default', '/nonexistent-home', ROOT);
  t.throws(
    () => parseKeymap({ bindings: { 'universal.quit': ['C-x'], 'stores.create': 'C-x n' } }, 'x.json', base),
    {
      message: /key ctrl-x \(universal\.quit\) is also the start of ctrl-x n \(stores\.create\)/,
    },
  );
  const vim = loadKeymap('vim', '/nonexistent-home', ROOT);
  t.deepEqual(matchKeys(vim, CHAINS.stores!, ['l']), { action: 'stores.open' });
  t.deepEqual(matchKeys(vim, CHAINS.sources!, ['h']), { action: 'sources.back' });
  t.deepEqual(matchKeys(vim, CHAINS.browser!, ['h']), { action: 'browser.parent' });
});

test('shipped keymaps bind every action with no key meaning two things on one screen', (t) => {
  for (const name of ['default', 'vim', 'emacs']) {
    const km = loadKeymap(name, '/nonexistent-home', ROOT);
    t.is(km.name, name);
    for (const a of ACTION_NAMES) t.true(km.keys[a].length > 0, `${name}: ${a}`);
    t.deepEqual(keymapConflicts(km), [], name);
  }
});

test('keymap files are validated: unknown actions, bad keys and conflicts are named', (t) => {
  const base = loadKeymap('default', '/nonexistent-home', ROOT);
  t.throws(() => parseKeymap({ bindings: { 'stores.craete': 'n' } }, 'x.json', base), {
    message: /unknown action "stores\.craete"/,
  });
  t.throws(() => parseKeymap({ bindings: { 'stores.create': 'hyper+x' } }, 'x.json', base), {
    message: /is not a key/,
  });
  t.throws(() => parseKeymap({ bindings: { 'stores.create': 'd' } }, 'x.json', base), {
    message: /key d means both stores\.create and stores\.delete/,
  });
  t.throws(() => parseKeymap({ bindings: {} }, 'x.json'), { message: /has no key/ });
});

test('shipped themes define every role with valid colours; bad colours are refused', (t) => {
  for (const name of ['dark', 'light', 'high-contrast']) {
    const raw = JSON.parse(readFileSync(join(ROOT, 'themes', `${name}.json`), 'utf8'));
    t.deepEqual(missingRoles(raw), [], name);
    const theme = loadTheme(name, '/nonexistent-home', ROOT);
    t.is(Object.keys(theme.roles).length, ROLES.length);
  }
  t.throws(() => parseTheme({ roles: { statusError: { fg: 'reddish' } } }, 't.json'), {
    message: /not a colour/,
  });
  t.throws(() => parseTheme({ roles: { nope: {} } }, 't.json'), { message: /unknown role "nope"/ });
});

test('paint: roles become SGR attributes in one place; text is never interpreted', (t) => {
  const theme = parseTheme(
    { roles: { default: { fg: '#111111', bg: '#222222' }, statusError: { fg: 'red', bold: true } } },
    't.json',
  );
  const grid = createPainter(theme, 'truecolor').grid(
    [{ segs: [{ text: 'a{b}', role: 'statusError' }, { text: 'x' }] }],
    6,
    1,
  );
  t.is(grid[0]!.map((c) => c.text).join(''), 'a{b}x ');
  t.is(grid[0]![0]!.sgr, '\x1b[0;1;31;48;2;34;34;34m');
  t.is(grid[0]![4]!.sgr, '\x1b[0;38;2;17;17;17;48;2;34;34;34m');
});

test('editor: an argument vector, never a shell string', (t) => {
  const cases: [Record<string, string>, string, number | undefined, { file: string; args: string[] }][] = [
    [{ EDITOR: 'vim' }, '/d/a b.md', 12, { file: 'vim', args: ['+12', '/d/a b.md'] }],
    [{ EDITOR: 'emacs -nw' }, '/x.md', 3, { file: 'emacs', args: ['-nw', '+3', '/x.md'] }],
    [{ EDITOR: 'code --wait' }, '/x.md', 7, { file: 'code', args: ['--wait', '--goto', '/x.md:7'] }],
    [{ EDITOR: 'hx' }, '/x.md', 7, { file: 'hx', args: ['/x.md:7'] }],
    [{ EDITOR: 'nano' }, '/x.pdf', undefined, { file: 'nano', args: ['/x.pdf'] }],
    [{}, '/$(rm -rf ~).md', 1, { file: 'vi', args: ['+1', '/$(rm -rf ~).md'] }],
  ];
  for (const [env, path, line, want] of cases) t.deepEqual(editorCommand(env, path, line), want);
  t.deepEqual(splitCommand(`"/opt/my editor/bin/ed" -x`), ['/opt/my editor/bin/ed', '-x']);
});

test('forms: Advanced stays collapsed until opened; hidden fields are skipped', (t) => {
  let f = createForm([{ id: 'kortty-lexical-starter', size: 1, source: 'generated' }]);
  t.false(isVisible(f, f.fields.find((x) => x.id === 'chunkSize')!));
  t.is(fieldValue(f, 'model'), 'kortty-lexical-starter');
  f = typeText(f, 'Notes');
  t.is(fieldValue(f, 'name'), 'Notes');
  const seen: string[] = [];
  for (let i = 0; i < 12; i++) {
    f = moveFocus(f, 1);
    seen.push(f.focus);
  }
  t.false(seen.includes('chunkSize'));
  f = { ...f, focus: 'advanced' };
  f = toggle(f);
  t.true(isVisible(f, f.fields.find((x) => x.id === 'chunkSize')!));
  t.false(isVisible(f, f.fields.find((x) => x.id === 'qdrantUrl')!), 'Qdrant fields only for a Qdrant store');
  f = toggle({ ...f, focus: 'type' });
  t.is(fieldValue(f, 'type'), 'qdrant');
  t.true(isVisible(f, f.fields.find((x) => x.id === 'qdrantUrl')!));
  t.is(focused(f)?.id, 'type');
});

const store = (over: Partial<StoreConfig> = {}): StoreConfig => ({
  version: 1,
  id: 'docs',
  name: 'Docs',
  type: 'local',
  modelId: 'kortty-lexical-starter',
  fingerprint: {
    modelId: 'kortty-lexical-starter',
    fileName: 'x',
    fileSize: 1,
    fileSha256: 'a',
    dimension: 384,
    pooling: 'mean',
    documentPrefix: '',
    queryPrefix: '',
  },
  roles: ['text'],
  autonomous: false,
  chunk: { chunkTokens: 800, overlapTokens: 120 },
  sources: [
    {
      id: 's1',
      path: '/home/u/notes',
      kind: 'folder',
      sync: 'manual',
      enabled: true,
      options: { maxFileBytes: 50 * 1024 * 1024, include: [], exclude: [], gitignore: true },
      status: 'READY',
      files: 12,
      chunks: 40,
      problems: 1,
      problemList: [
        { path: '/home/u/notes/x.txt', reason: 'not-utf8', explanation: 'invalid UTF-8 at byte 3' },
      ],
      skipped: 1,
      skippedList: [{ path: '/home/u/notes/x.bin', reason: 'binary', explanation: 'NUL byte at 3' }],
      lastIndexedAt: '2025-01-02T03:04:05Z',
      hashes: {},
    },
  ],
  createdAt: '2025-01-01T00:00:00Z',
  ...over,
});

function view(state: AppState): ViewContext {
  return { state, hints: [], key: (a) => a, now: 0 };
}

test('layout: every screen is exactly width × height, at 80×24 and beyond', (t) => {
  const review: Review = {
    root: '/home/u/notes',
    rows: [{ path: '/home/u/notes/a.md', relPath: 'a.md', format: 'markdown', size: 10, status: 'new' }],
    removed: [],
    summary: {
      visited: 1,
      toIndex: { new: 1, changed: 0 },
      unchanged: 0,
      removed: 0,
      skipped: {},
      formats: { markdown: { count: 1, bytes: 10 } },
      acceptedBytes: 10,
      extractedChars: 10,
    },
  };
  const job: JobState = {
    op: 'add',
    storeId: 'docs',
    storeName: 'Docs',
    phase: 'indexing',
    adding: [{ kind: 'folder', path: '/x' }],
    sourceIds: [],
    cancelling: false,
    startedAt: 0,
    progress: {
      storeId: 'docs',
      state: 'embedding',
      documents: 5,
      documentsTotal: 10,
      chunks: 33,
      problems: 1,
      percent: 57,
    },
  };
  const dialogs: AppState['dialogs'][] = [
    [],
    [{ kind: 'help', rows: [{ keys: 'q', description: 'Quit' }], scroll: 0 }],
    [
      {
        kind: 'review',
        reviews: [{ sourceId: 's', label: '/home/u/notes', kind: 'folder', review }],
        index: 0,
        skippedOnly: false,
        selected: 0,
      },
    ],
    [
      {
        kind: 'search',
        storeId: 'docs',
        storeName: 'Docs',
        query: 'q',
        focus: 'query',
        mode: 'hybrid',
        selected: 0,
        scroll: 0,
      },
    ],
    [{ kind: 'create', form: createForm([]), sources: [] }],
    [{ kind: 'confirm', title: 'Delete', lines: [{ text: 'x' }], yes: 'delete', onYes: () => {} }],
  ];
  for (const [w, h] of [
    [80, 24],
    [120, 40],
    [60, 16],
  ] as const) {
    for (const ds of dialogs) {
      const state = {
        ...initialState({ width: w, height: h }, 'default', 'dark'),
        stores: [store()],
        loaded: true,
        job,
        dialogs: ds,
      };
      const frame = renderApp(view(state), { disabledFields: {} });
      t.is(frame.length, h);
      for (const l of frame) t.is(lineWidth(l), w, `${w}×${h} ${ds[0]?.kind ?? 'main'}: ${lineText(l)}`);
    }
  }
  const tiny = renderApp(view(initialState({ width: 30, height: 8 }, 'default', 'dark')), {
    disabledFields: {},
  });
  t.true(lineText(tiny[0]!).includes('Terminal too small'));
});

test('job status line keeps state, documents, chunks, problems and percent at 80 columns', (t) => {
  const job: JobState = {
    op: 'update',
    storeId: 'docs',
    storeName: 'Project notes',
    phase: 'indexing',
    adding: [],
    sourceIds: ['s1'],
    cancelling: false,
    startedAt: 0,
    progress: {
      storeId: 'docs',
      state: 'extracting',
      documents: 1200,
      documentsTotal: 3000,
      chunks: 4100,
      problems: 3,
      percent: 17,
    },
  };
  for (const w of [80, 120]) {
    const text = jobStatusSegs(job, w, 'x')
      .map((s) => s.text)
      .join('');
    t.true(strWidth(text) <= w, text);
    t.regex(text, /extracting.*1200\/3000.*4100.*3.*17%.*x cancel/);
  }
  const activating = { ...job, progress: { ...job.progress!, state: 'activating' as const, percent: 98 } };
  t.regex(
    jobStatusSegs(activating, 80, 'x')
      .map((s) => s.text)
      .join(''),
    /activating: completes/,
  );
});

test('review summary: counts, skip reasons and format groups', (t) => {
  const r: Review = {
    root: '/r',
    rows: [],
    removed: ['/r/gone.md'],
    summary: {
      visited: 9,
      toIndex: { new: 2, changed: 1 },
      unchanged: 3,
      removed: 1,
      skipped: { binary: 2, hidden: 1, 'not-utf8': 1 },
      formats: {
        markdown: { count: 2, bytes: 5 },
        python: { count: 1, bytes: 5 },
        text: { count: 3, bytes: 1 },
      },
      acceptedBytes: 11,
      extractedChars: 11,
    },
  };
  const s = summaryText(r);
  t.is(s.counts, 'new 2 · changed 1 · unchanged 3 · removed 1 · skipped 4');
  t.is(s.skipped, 'binary 2, hidden 1', 'skipped by design');
  t.is(s.problems, 'not-utf8 1', 'files that should have been indexed');
  t.regex(s.formats, /Code 1 \(python\).*Markup 2 \(markdown\).*Text 3 \(text\)/);
});

test('assistant: the starter is labelled for what it is; help keeps disabled reasons readable', (t) => {
  t.is(
    rowLabel({ kind: 'generated', label: 'whatever' } as never),
    'Lexical starter: matches words, not meaning',
  );
  const lines = helpLines(
    [
      {
        keys: 'u',
        description: 'Update now: check the selected source again',
        disabled: 'indexing is already running for store "Docs"',
      },
    ],
    60,
  );
  t.is(lines.length, 2);
  t.regex(lineText(lines[1]!), /↳ indexing is already running/);
});

test('hints and help rows come from the binding records and the keymap', (t) => {
  const km = loadKeymap('vim', '/nonexistent-home', ROOT);
  const groups = [
    {
      title: 'Sources pane',
      bindings: [
        { action: 'sources.updateNow' as const, handler: () => {}, disabledReason: () => 'busy' },
        { action: 'sources.addFiles' as const, handler: () => {} },
        { action: 'list.down' as const, handler: () => {}, hint: false },
      ],
    },
  ];
  // The hint bar shows only keys that work now; the help overlay keeps the disabled one and why.
  t.deepEqual(hints(groups, km), [{ key: 'a', label: 'add files' }]);
  const rows = helpRows(groups, km);
  t.deepEqual(rows[0], { keys: '', description: 'Sources pane', heading: true });
  t.deepEqual(rows[1], {
    keys: 'r',
    description: 'Update now: check the selected source again',
    disabled: 'busy',
  });
  t.is(rows[3]!.keys, 'j, ↓');
});
