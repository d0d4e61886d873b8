import { appendFile, mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import xterm from '@xterm/headless';
import test from 'ava';
import { setRole, upsertProfile } from '../../src/ai/profiles.js';
import { loadProfiles, saveProfiles } from '../../src/ai/profiles-file.js';
import { appendRun, readRuns } from '../../src/ai/runs-file.js';
import { main } from '../../src/cli/main.js';
import { profilesPath, runsDir } from '../../src/storage/paths.js';
import { addSources, createStore } from '../../src/store/engine.js';
import { createFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { countingPorts, homeWithStarter } from '../helpers/store-env.js';
import { captureIO } from './capture.js';

// Hostile text reaching the terminal through the CLI: a model answer with OSC 52 (clipboard),
// OSC 0 (title) and CSI 2J (clear screen), cut across stream chunks; a .gitignore pattern; source
// paths and a store name; a run record. What reaches stdout is checked byte by byte and rendered
// by a real terminal emulator (@xterm/headless): no title change, no clipboard write, no clear.

const ESC = '\x1b';
const OSC52 = `${ESC}]52;c;cm0gLXJmIH4=\x07`;
const TITLE = `${ESC}]0;answer-title\x07`;
const CLEAR = `${ESC}[2J${ESC}[H`;
// Bytes a terminal would act on: ESC, BEL, C1 controls (UTF-8 C2 80..C2 9F), bidi overrides.
const RAW = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/u;

interface Effects {
  titles: string[];
  clipboard: string[];
  kept: boolean;
}

/** Renders bytes in a headless xterm after a marker line: what would the terminal have done? */
async function effects(bytes: Buffer | string): Promise<Effects> {
  const term = new xterm.Terminal({ cols: 160, rows: 300, allowProposedApi: true, convertEol: true });
  const titles: string[] = [];
  const clipboard: string[] = [];
  term.onTitleChange((t) => titles.push(t));
  term.parser.registerOscHandler(52, (data) => {
    clipboard.push(data);
    return true;
  });
  const write = (d: string | Uint8Array) => new Promise<void>((r) => term.write(d, r));
  await write('MARKER-BEFORE\n');
  await write(typeof bytes === 'string' ? bytes : new Uint8Array(bytes));
  const b = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < b.length; y++) lines.push(b.getLine(y)?.translateToString(true) ?? '');
  term.dispose();
  return { titles, clipboard, kept: lines.join('\n').includes('MARKER-BEFORE') };
}

function assertInert(t: import('ava').ExecutionContext, bytes: Buffer, what: string) {
  const text = bytes.toString('utf8');
  t.false(bytes.includes(0x1b), `${what}: no raw ESC`);
  t.false(bytes.includes(0x07), `${what}: no raw BEL`);
  t.notRegex(text, RAW, `${what}: no raw control or bidi character`);
}

test('the harness can fail: raw hostile bytes do set the title, write the clipboard, clear', async (t) => {
  const e = await effects(`${OSC52}${TITLE}${CLEAR}\u009b2J`);
  t.deepEqual(e.titles, ['answer-title']);
  t.deepEqual(e.clipboard, ['c;cm0gLXJmIH4=']);
  t.false(e.kept);
});

test('scan: a .gitignore pattern with escape sequences is shown, not obeyed', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'kortty-esc-scan-'));
  await writeFile(join(root, 'J.log'), 'x');
  await writeFile(join(root, 't0;pwned\\.txt'), 'x');
  await writeFile(join(root, 'a.md'), '# a\n');
  // Bracket expressions make each pattern match a plain name while carrying a sequence:
  // CSI 2J in the first, OSC 0 (ESC ] … ESC \) in the second.
  await writeFile(join(root, '.gitignore'), `[${ESC}[2J]*.log\n[t${ESC}]0;pwned[${ESC}\\\\]*.txt\n`);
  const raw = await effects(`[${ESC}]0;pwned[${ESC}\\\\]*.txt ok`);
  t.deepEqual(raw.titles, ['pwned['], 'the pattern printed raw would set the title');

  const c = captureIO({ cwd: root });
  t.is(await main(['scan', root], c.io), 0, c.stderr());
  assertInert(t, c.stdoutBytes(), 'scan');
  t.regex(c.stdout(), /J\.log\s+gitignored: .*\(pattern "\[\\x1b\[2J\]\*\.log"\)/);
  t.regex(c.stdout(), /gitignored: .*\(pattern "\[t\\x1b\]0;pwned\[\\x1b\\\\\]\*\.txt"\)/);
  const e = await effects(c.stdoutBytes());
  t.deepEqual(e, { titles: [], clipboard: [], kept: true });

  const j = captureIO({ cwd: root });
  t.is(await main(['scan', root, '--json'], j.io), 0);
  assertInert(t, j.stdoutBytes(), 'scan --json');
  const review = JSON.parse(j.stdout()) as { rows: { relPath: string; explanation?: string }[] };
  t.true(
    review.rows.some((r) => r.explanation?.includes(`[${ESC}[2J]*.log`)),
    'JSON keeps the exact pattern',
  );
});

interface World {
  home: string;
  fake: FakeOpenAI;
  docs: string;
}
let world: World;

// A source folder whose very name carries an OSC 0 and a right-to-left override, a store whose name
// carries a bidi override, and a backend whose answer is hostile and cut mid-sequence.
test.before(async () => {
  const home = await homeWithStarter();
  const answer = [
    'According to [R1] the kiwi orchard is watered on Tuesday. ',
    ESC,
    ']52;c;',
    'cm0gLXJmIH4=',
    '\x07',
    `${ESC}]0;`,
    'answer-',
    'title\x07',
    `${ESC}[2`,
    'J',
    `${ESC}[H`,
    '\u009b2J',
    'Done.\r',
    '\n',
  ];
  const fake = await createFakeOpenAI({
    reply: () => ({ content: answer.join(''), tokens: answer }),
    split: 7,
  });
  const docs = join(await mkdtemp(join(tmpdir(), 'kortty-esc-')), `docs-${ESC}]0;path-title\x07-\u202Eevil`);
  await mkdir(docs);
  await writeFile(
    join(docs, 'kiwi.md'),
    '# Kiwi orchard\n\nThe kiwi orchard irrigation is scheduled every Tuesday at dawn.\n',
  );
  await createStore(
    { name: 'Orchard \u202Enotes', modelId: 'kortty-lexical-starter', roles: ['text'] },
    home,
  );
  await addSources(
    'Orchard \u202Enotes',
    [{ kind: 'folder', path: docs }],
    { ports: countingPorts(home) },
    home,
  );
  let cfg = await loadProfiles(profilesPath(home));
  cfg = upsertProfile(
    cfg,
    {
      name: 'writer',
      backend: 'openai',
      baseUrl: fake.url,
      model: 'fake',
      contextWindow: 8192,
      family: 'generic',
      requireCitations: false,
      retrievalMode: 'before',
    },
    profilesPath(home),
  );
  cfg = setRole(cfg, 'text', 'writer', profilesPath(home));
  await saveProfiles(cfg, profilesPath(home));
  world = { home, fake, docs };
});

test.after.always(async () => {
  await world?.fake.close();
});

test.serial(
  'ask: the streamed answer shows its escape sequences as text; the terminal is untouched',
  async (t) => {
    const c = captureIO();
    const code = await main(['ask', `when is the kiwi orchard watered ${ESC}]0;prompt-title\x07`], c.io);
    t.is(code, 0, c.stderr());
    const out = c.stdout();
    assertInert(t, c.stdoutBytes(), 'ask');
    t.true(out.startsWith('According to [R1] the kiwi orchard is watered on Tuesday. '), out);
    t.true(
      out.includes('\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b]0;answer-title\\x07\\x1b[2J\\x1b[H\\x9b2JDone.\n'),
      out,
    );
    t.regex(out, /\n {2}\[R1\] \/.*docs-\\x1b\]0;path-title\\x07-\\u202eevil\/kiwi\.md:\d+/);
    const e = await effects(c.stdoutBytes());
    t.deepEqual(e, { titles: [], clipboard: [], kept: true });
    // The whole answer came as 14 deltas cut inside every sequence.
    t.is(world.fake.requests.length, 1);

    const j = captureIO();
    t.is(await main(['ask', '--json', 'when is the kiwi orchard watered'], j.io), 0, j.stderr());
    assertInert(t, j.stdoutBytes(), 'ask --json');
    const res = JSON.parse(j.stdout()) as { answer: string };
    t.true(
      res.answer.includes(`${OSC52}${ESC}]0;answer-title\x07${CLEAR}\u009b2J`),
      'JSON keeps the exact answer',
    );
  },
);

test.serial(
  'search: paths and store names with escapes print inert in the block and the score table',
  async (t) => {
    const c = captureIO();
    t.is(await main(['search', 'kiwi orchard irrigation'], c.io), 0, c.stderr());
    assertInert(t, c.stdoutBytes(), 'search');
    t.regex(
      c.stdout(),
      /\n\[R1\] \/.*docs-\\x1b\]0;path-title\\x07-\\u202eevil\/kiwi\.md \(lines 1-3\) {2}vector #1/,
    );
    t.deepEqual(await effects(c.stdoutBytes()), { titles: [], clipboard: [], kept: true });
    const j = captureIO();
    t.is(await main(['search', '--json', 'kiwi orchard irrigation'], j.io), 0);
    assertInert(t, j.stdoutBytes(), 'search --json');
    const res = JSON.parse(j.stdout()) as { excerpts: { path: string; storeName: string }[] };
    t.is(res.excerpts[0]!.path, join(world.docs, 'kiwi.md'));
    t.is(res.excerpts[0]!.storeName, 'Orchard \u202Enotes');

    for (const argv of [
      ['store', 'list'],
      ['store', 'show', 'Orchard \u202Enotes'],
      ['source', 'list', 'Orchard \u202Enotes'],
    ]) {
      const o = captureIO();
      t.is(await main(argv, o.io), 0, o.stderr());
      assertInert(t, o.stdoutBytes(), argv.join(' '));
      t.regex(o.stdout(), /Orchard \\u202enotes|docs-\\x1b\]0;path-title\\x07-\\u202eevil/, argv.join(' '));
      t.deepEqual(await effects(o.stdoutBytes()), { titles: [], clipboard: [], kept: true }, argv.join(' '));
    }
  },
);

test.serial('runs: queries, profiles and paths of run records print inert', async (t) => {
  // Run records are files on disk: one written by another version or tool may hold anything.
  const dir = runsDir(world.home);
  const [rec] = (await readRuns({ dir })).records;
  t.truthy(rec, 'the ask above recorded a run');
  await appendRun(
    {
      ...rec!,
      id: `${rec!.id}-hostile`,
      query: `when ${ESC}]0;query-title\x07 is it`,
      profile: `writer${ESC}[2J`,
      excerpts: rec!.excerpts.map((e) => ({ ...e, path: `${e.path}${ESC}]52;c;cm0=\x07` })),
    },
    dir,
  );
  const file = join(dir, (await readdir(dir)).find((n) => n.endsWith('.jsonl'))!);
  await appendFile(file, `{"damaged": "${'\\u001b'}]0;damaged-title${'\\u0007'}\u009b2J"\n`);

  const c = captureIO();
  t.is(await main(['runs'], c.io), 0, c.stderr());
  assertInert(t, c.stdoutBytes(), 'runs');
  assertInert(t, Buffer.from(c.stderr()), 'runs (stderr)');
  t.regex(c.stdout(), /profile writer\\x1b\[2J · ok\n {2}query: when \\x1b\]0;query-title\\x07 is it\n/);
  t.regex(
    c.stdout(),
    /\[R1\] cited \/.*docs-\\x1b\]0;path-title\\x07-\\u202eevil\/kiwi\.md\\x1b\]52;c;cm0=\\x07/,
  );
  t.regex(c.stderr(), /damaged run record: /);
  t.deepEqual(await effects(c.stdoutBytes()), { titles: [], clipboard: [], kept: true });
  t.deepEqual(await effects(c.stderr()), { titles: [], clipboard: [], kept: true });
  const j = captureIO();
  t.is(await main(['runs', '--json'], j.io), 0);
  assertInert(t, j.stdoutBytes(), 'runs --json');
  const { runs } = JSON.parse(j.stdout()) as { runs: { query: string }[] };
  t.true(runs.some((r) => r.query === `when ${ESC}]0;query-title\x07 is it`));
});

test.serial('error messages naming user input print inert on stderr', async (t) => {
  const c = captureIO();
  t.is(await main(['store', 'show', `no ${ESC}]0;err-title\x07 store`], c.io), 1);
  t.is(c.stderr(), 'kortty-rag store show: no store named "no \\x1b]0;err-title\\x07 store"\n');
  const u = captureIO();
  t.is(await main(['search', `--${ESC}]0;opt-title\x07`], u.io), 2);
  t.notRegex(u.stderr(), RAW);
  t.deepEqual(await effects(u.stderr()), { titles: [], clipboard: [], kept: true });
  const n = captureIO();
  t.is(await main(['store', 'create', `bad ${ESC}]0;name\x07`], n.io), 1);
  t.regex(n.stderr(), /a store name cannot contain control characters/);
});
