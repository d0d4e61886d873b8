import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { sanitizeUntrusted } from '../../src/retrieve/sanitize.js';
import { watcherLockPath } from '../../src/storage/paths.js';
import { stopQueryService } from '../helpers/query-service.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { BIN, cliOnPath, ROOT, startTmux, TMUX_ENTRY, type TmuxEnv, waitFor } from './tmux-harness.js';

// The tmux plugin against a real tmux server (private socket, real client in a pty), the real CLI
// and the scripted OpenAI-compatible backend in its own process (`--record` logs every request).

const run = promisify(execFile);
const PREFIX = '\x02'; // C-b

interface Ctx {
  home: string;
  work: string;
  selDir: string;
  record: string;
  backend: ChildProcess;
  tmux: TmuxEnv;
  env: NodeJS.ProcessEnv;
  docs: string;
  pwned: string;
}
let ctx: Ctx;

const cli = (env: NodeJS.ProcessEnv, ...args: string[]) => run(process.execPath, [BIN, ...args], { env });

test.before(async () => {
  const home = await homeWithStarter();
  const work = await mkdtemp(join(tmpdir(), 'kortty-tmux-'));
  const selDir = join(work, 'tmp');
  await mkdir(selDir);
  const record = join(work, 'requests.jsonl');
  const urlFile = join(work, 'url');
  const backend = spawn(
    process.execPath,
    [join(ROOT, 'dist/test/helpers/fake-openai-main.js'), '--url-file', urlFile, '--record', record],
    {
      stdio: 'ignore',
    },
  );
  const url = await waitFor(
    () =>
      readFile(urlFile, 'utf8').then(
        (s) => s.trim() || undefined,
        () => undefined,
      ),
    'the fake backend URL',
  );
  const binDir = await cliOnPath(join(work, 'bin'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KORTTY_HOME: home,
    TMPDIR: selDir,
    PATH: `${binDir}:${process.env.PATH}`,
    PS1: '$ ',
  };
  const docs = join(work, 'docs');
  await writeTree(docs, {
    'kiwi.md': `# Kiwi orchard\n\nThe kiwi orchard irrigation is scheduled every Tuesday at dawn.\n${prose('kiwi', 6, 3)}`,
    'bikes.md': prose('bicycles', 12, 4),
  });
  await cli(
    env,
    'profile',
    'add',
    'fake',
    '--base-url',
    url,
    '--model',
    'scripted',
    '--role',
    'text',
    '--require-citations',
  );
  await cli(env, 'store', 'create', 'Notes', '--role', 'text');
  await cli(env, 'source', 'add', 'Notes', docs, '--yes');
  const tmux = await startTmux({ env });
  await tmux.tmux('set-option', '-g', '@kortty-rag-popup-size', '90%x45%');
  await tmux.tmux('run-shell', TMUX_ENTRY); // what TPM does
  ctx = {
    home,
    work,
    selDir,
    record,
    backend,
    tmux,
    env,
    docs,
    pwned: `pwned-${randomBytes(4).toString('hex')}`,
  };
});

test.after.always(async () => {
  await ctx?.tmux.kill();
  if (ctx) await stopQueryService(ctx.home);
  ctx?.backend.kill('SIGTERM');
  if (ctx) await rm(ctx.work, { recursive: true, force: true });
});

async function requests(): Promise<{ messages: { role: string; content?: string }[] }[]> {
  const text = await readFile(ctx.record, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

function selectionSent(req: { messages: { role: string; content?: string }[] }): string | undefined {
  const user = req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  return /<terminal_selection>\n([\s\S]*?)\n<\/terminal_selection>/.exec(user)?.[1];
}

/** Shows a file in the pane and selects from the line starting with `from` to the end of the line starting with `to`. */
let shown = 0;
async function showAndSelect(file: string, from: string, to: string) {
  const t = ctx.tmux;
  // A fresh pane showing only the file (no shell echo racing with the output), then a line no
  // earlier pane printed: the screen of the pane before, showing the same file, must not pass for
  // this one, or copy mode would start before `cat` has printed.
  const mark = `kortty-pane-${++shown}`;
  await t.tmux('respawn-pane', '-k', '-t', 'main', `cat '${file}'; echo ${mark}; exec sleep 86400`);
  await t.waitForScreen((s) => s.includes(mark), `${mark} in the pane`);
  await t.waitForScreen((s) => s.split('\n').some((l) => l.startsWith(to)), `${to} in the pane`);
  await t.tmux('copy-mode', '-t', 'main');
  await t.tmux('send-keys', '-t', 'main', '-X', 'search-backward', from);
  await t.tmux('send-keys', '-t', 'main', '-X', 'start-of-line');
  await t.tmux('send-keys', '-t', 'main', '-X', 'begin-selection');
  if (to !== from) await t.tmux('send-keys', '-t', 'main', '-X', 'search-forward', to);
  await t.tmux('send-keys', '-t', 'main', '-X', 'end-of-line');
}

async function closePopup() {
  ctx.tmux.type('q');
  await ctx.tmux.waitForScreen((s) => !s.includes('press any key to close'), 'the popup to close');
}

// A failed test must not leave a popup or copy mode behind for the next one.
test.afterEach.always(async () => {
  const t = ctx.tmux;
  const client = (await t.tmux('list-clients', '-F', '#{client_name}')).trim();
  await t.tmux('display-popup', '-C', '-c', client).catch(() => {});
  await t.tmux('send-keys', '-t', 'main', '-X', 'cancel').catch(() => {});
  await t.waitForScreen(
    (x) => !x.includes('press any key to close') && !/┌─ kortty-rag/.test(x),
    'no popup',
    10_000,
  );
});

const pwnedFiles = async () => (await readdir('/tmp')).filter((n) => n.startsWith(ctx.pwned));
const leftovers = async () => (await readdir(ctx.selDir)).filter((n) => n.startsWith('kortty-rag-'));

test.serial('the plugin loads through its TPM entry: bindings with default keys', async (t) => {
  const prefix = await ctx.tmux.tmux('list-keys', '-T', 'prefix');
  t.regex(prefix, /bind-key\s+-T prefix\s+B\s+display-popup .*kortty-rag\.sh' manager/);
  t.regex(prefix, /bind-key\s+-T prefix\s+A\s+run-shell -b .*kortty-rag\.sh' ask-buffer/);
  t.notRegex(prefix, /-T prefix\s+R\s+.*kortty-rag/, 'prefix + R stays the usual "reload config"');
  for (const table of ['copy-mode-vi', 'copy-mode']) {
    const keys = await ctx.tmux.tmux('list-keys', '-T', table);
    t.regex(keys, new RegExp(`bind-key\\s+-T ${table}\\s+a\\s+run-shell -b .*kortty-rag\\.sh' copy-key `));
  }
});

test.serial("the default keys are free in tmux's own key tables (tmux -f /dev/null)", async (t) => {
  const s = await startTmux({ env: ctx.env });
  try {
    const keysOf = async (table: string) =>
      new Set(
        (await s.tmux('list-keys', '-T', table))
          .split('\n')
          .map((l) => /^bind-key\s+(?:-r\s+)?-T \S+\s+(\S+)/.exec(l)?.[1])
          .filter(Boolean),
      );
    const prefix = await keysOf('prefix');
    t.true(prefix.has('c') && prefix.has('d'), 'the listing is parsed');
    for (const key of ['B', 'A']) t.false(prefix.has(key), `prefix + ${key} is a tmux default`);
    for (const table of ['copy-mode-vi', 'copy-mode']) t.false((await keysOf(table)).has('a'), table);
    await s.tmux('run-shell', TMUX_ENTRY);
    t.false((await keysOf('prefix')).has('R'), 'prefix + R is left alone');
  } finally {
    await s.kill();
  }
});

test.serial('copy mode: the ask key with nothing selected says so and stays in copy mode', async (t) => {
  const tm = ctx.tmux;
  await tm.tmux('set-option', '-g', 'display-time', '4000');
  try {
    const before = (await requests()).length;
    await tm.tmux('respawn-pane', '-k', '-t', 'main', "printf 'nothing to see\\n'; exec sleep 86400");
    await tm.waitForScreen((x) => x.includes('nothing to see'), 'the pane text');
    await tm.tmux('copy-mode', '-t', 'main');
    tm.type('a');
    const screen = await tm.waitForScreen(
      (x) => x.includes('kortty-rag: nothing selected'),
      'the "nothing selected" message',
    );
    t.regex(screen, /nothing selected: start a selection first/);
    t.is((await tm.tmux('display-message', '-p', '-t', 'main', '#{pane_in_mode}')).trim(), '1');
    t.is((await requests()).length, before, 'nothing was asked');
    t.deepEqual(await leftovers(), []);
  } finally {
    await tm.tmux('set-option', '-gu', 'display-time');
  }
});

test.serial('a selection of fewer than 3 characters asks first: n sends nothing, y asks', async (t) => {
  const tm = ctx.tmux;
  const file = join(ctx.work, 'short.txt');
  await writeFile(file, 'a longer first line\nzq\nthe last line\n');
  const before = (await requests()).length;
  await showAndSelect(file, 'zq', 'zq');
  tm.type('a');
  await tm.waitForScreen(
    (x) => x.includes('kortty-rag: ask about a 2-character selection? (y/n)'),
    'the prompt',
  );
  tm.type('n');
  await tm.waitForScreen((x) => !x.includes('2-character selection'), 'the prompt to go');
  t.is((await requests()).length, before, '"n" sends nothing');
  t.deepEqual(await leftovers(), [], 'no selection file left behind');

  await showAndSelect(file, 'zq', 'zq');
  tm.type('a');
  await tm.waitForScreen((x) => x.includes('2-character selection? (y/n)'), 'the prompt again');
  tm.type('y');
  await tm.waitForScreen((x) => x.includes('press any key to close'), 'the answer popup');
  const reqs = await requests();
  t.is(reqs.length, before + 1);
  t.is(selectionSent(reqs.at(-1)!), 'zq');
  await closePopup();
  t.deepEqual(await leftovers(), []);
});

test.serial('options override the default keys', async (t) => {
  const s = await startTmux({ env: ctx.env });
  try {
    await s.tmux('set-option', '-g', '@kortty-rag-ask-key', 'Q');
    await s.tmux('set-option', '-g', '@kortty-rag-copy-mode-key', 'k');
    await s.tmux('run-shell', TMUX_ENTRY);
    t.regex(await s.tmux('list-keys', '-T', 'prefix'), /-T prefix\s+Q\s+run-shell -b .*ask-buffer/);
    t.regex(
      await s.tmux('list-keys', '-T', 'copy-mode-vi'),
      /-T copy-mode-vi\s+k\s+run-shell -b .*copy-key /,
    );
  } finally {
    await s.kill();
  }
});

test.serial(
  'copy-mode selection → ask key → the popup streams the answer with [R1] and its source',
  async (t) => {
    const q = join(ctx.work, 'question.txt');
    await writeFile(
      q,
      'unrelated first line\nwhen is the kiwi orchard irrigation scheduled\nunrelated last line\n',
    );
    const before = (await requests()).length;
    await showAndSelect(q, 'when is the kiwi', 'when is the kiwi');
    ctx.tmux.type('a');
    const screen = await ctx.tmux.waitForScreen(
      (s) => s.includes('[R1]') && s.includes('kiwi.md') && s.includes('press any key to close'),
      'the answer in the popup',
    );
    t.regex(screen, /kortty-rag ask/); // popup title
    t.regex(screen, /According to the retrieved context \[R1\]/);
    t.regex(screen, new RegExp(`\\[R1\\] ${ctx.docs.replace(/[/.]/g, '\\$&')}/kiwi\\.md:\\d+`));
    const reqs = await requests();
    t.is(reqs.length, before + 1);
    t.is(selectionSent(reqs.at(-1)!), 'when is the kiwi orchard irrigation scheduled');
    t.deepEqual(await leftovers(), [], 'the selection file is removed after the ask');
    await closePopup();
    if (process.env.KORTTY_POPUP_CAPTURE) await writeFile(process.env.KORTTY_POPUP_CAPTURE, screen);
  },
);

test.serial('a hostile copy-mode selection reaches the backend intact and runs nothing', async (t) => {
  const p = `/tmp/${ctx.pwned}`;
  const hostile = [
    'HOSTILE-START kiwi orchard',
    `$(touch ${p}-a)`,
    `\`touch ${p}-b\``,
    `'; touch ${p}-c #`,
    `"; touch ${p}-d #`,
    `\\"; touch ${p}-e; echo \\`,
    `$HOME \${IFS} %s %n #{client_name} #(touch ${p}-f) #[fg=red]`,
    'HOSTILE-END',
  ].join('\n');
  const file = join(ctx.work, 'hostile.txt');
  await writeFile(file, `${hostile}\n`);
  const before = (await requests()).length;
  await showAndSelect(file, 'HOSTILE-START', 'HOSTILE-END');
  ctx.tmux.type('a');
  await ctx.tmux.waitForScreen(
    (s) => s.includes('press any key to close') && s.includes('[R1]'),
    'the answer to the hostile selection',
  );
  const reqs = await requests();
  t.is(reqs.length, before + 1);
  t.is(selectionSent(reqs.at(-1)!), sanitizeUntrusted(hostile));
  t.deepEqual(await pwnedFiles(), []);
  await closePopup();
});

test.serial(
  'prefix+A asks about the most recent buffer; escape sequences and newlines arrive intact',
  async (t) => {
    const p = `/tmp/${ctx.pwned}`;
    const data = `kiwi orchard irrigation\n\x1b[31mred\x1b[0m \x1b]0;title\x07 $(touch ${p}-g) \`touch ${p}-h\` '; touch ${p}-i #\n#(touch ${p}-j)\nlast line`;
    await ctx.tmux.tmux('set-buffer', '--', data);
    const before = (await requests()).length;
    ctx.tmux.type(`${PREFIX}A`);
    await ctx.tmux.waitForScreen(
      (s) => s.includes('press any key to close') && s.includes('[R1]'),
      'the answer about the buffer',
    );
    const reqs = await requests();
    t.is(reqs.length, before + 1);
    t.is(selectionSent(reqs.at(-1)!), sanitizeUntrusted(data));
    t.deepEqual(await pwnedFiles(), []);
    await closePopup();
  },
);

test.serial(
  'the plugin hands kortty-rag the exact bytes on stdin (mode 0600 file), never in argv',
  async (t) => {
    const out = join(ctx.work, 'recorder');
    await mkdir(out);
    const recorder = join(ctx.work, 'recorder.sh');
    await writeFile(
      recorder,
      `#!/bin/sh\nprintf '%s\\0' "$@" > '${out}/argv'\nstat -L -c %a /dev/stdin > '${out}/mode'\ncat > '${out}/stdin'\necho RECORDED\n`,
    );
    await chmod(recorder, 0o755);
    await ctx.tmux.tmux('set-option', '-g', '@kortty-rag-bin', recorder);
    try {
      const p = `/tmp/${ctx.pwned}`;
      // The buffer path: arbitrary bytes, including escape sequences and a trailing newline.
      const data = `one\n\x1b[2J\x1b]52;c;AAAA\x07 $(touch ${p}-k) \`touch ${p}-l\` '"\\ #{pane_id}\n`;
      await ctx.tmux.tmux('set-buffer', '--', data);
      ctx.tmux.type(`${PREFIX}A`);
      await ctx.tmux.waitForScreen(
        (s) => s.includes('RECORDED') && s.includes('press any key to close'),
        'the recorder to run',
      );
      t.is(await readFile(join(out, 'stdin'), 'latin1'), Buffer.from(data).toString('latin1'));
      t.deepEqual((await readFile(join(out, 'argv'), 'utf8')).split('\0').slice(0, -1), [
        'ask',
        '--action',
        'ask',
        '--stdin',
      ]);
      t.is((await readFile(join(out, 'mode'), 'utf8')).trim(), '600');
      await closePopup();

      // The copy-mode path.
      const file = join(ctx.work, 'plain.txt');
      await writeFile(file, `SEL-A $(touch ${p}-m) 'x' "y"\nSEL-B \`touch ${p}-n\`\n`);
      await rm(join(out, 'stdin'));
      await showAndSelect(file, 'SEL-A', 'SEL-B');
      ctx.tmux.type('a');
      await ctx.tmux.waitForScreen(
        (s) => s.includes('RECORDED') && s.includes('press any key to close'),
        'the recorder to run',
      );
      // Exactly what tmux selected (copy-pipe also keeps it as the newest buffer).
      const selected = await ctx.tmux.tmux('show-buffer');
      t.is(selected.replace(/\n$/, ''), `SEL-A $(touch ${p}-m) 'x' "y"\nSEL-B \`touch ${p}-n\``);
      t.is(await readFile(join(out, 'stdin'), 'utf8'), selected);
      t.deepEqual((await readFile(join(out, 'argv'), 'utf8')).split('\0').slice(0, -1), [
        'ask',
        '--action',
        'ask',
        '--stdin',
      ]);
      await closePopup();
      t.deepEqual(await pwnedFiles(), []);
      t.deepEqual(await leftovers(), []);
    } finally {
      await ctx.tmux.tmux('set-option', '-gu', '@kortty-rag-bin');
    }
  },
);

test.serial('prefix+B opens the manager (kortty-rag tui) in a popup', async (t) => {
  ctx.tmux.type(`${PREFIX}B`);
  const screen = await ctx.tmux.waitForScreen(
    (s) => /┌─ kortty-rag ─/.test(s) && /Notes/.test(s) && /Stores/.test(s),
    'the manager popup',
  );
  t.regex(screen, /│.*Notes.*│/);
  const client = (await ctx.tmux.tmux('list-clients', '-F', '#{client_name}')).trim();
  await ctx.tmux.tmux('display-popup', '-C', '-c', client);
  await ctx.tmux.waitForScreen((s) => !/┌─ kortty-rag ─/.test(s), 'the popup to close');
});

test.serial('errors show inside tmux: prefix+A with no buffer', async (t) => {
  const s = await startTmux({ env: ctx.env });
  try {
    await s.tmux('run-shell', TMUX_ENTRY);
    s.type(`${PREFIX}A`);
    const screen = await s.waitForScreen(
      (x) => x.includes('kortty-rag: no tmux buffer'),
      'the error message',
    );
    t.regex(screen, /no tmux buffer to ask about/);
  } finally {
    await s.kill();
  }
});

test.serial(
  'status-right snippet shows syncing (store and percent) while a store indexes, then idle',
  async (t) => {
    const big = join(ctx.work, 'big');
    const files: Record<string, string> = {};
    for (let i = 0; i < 80; i++) files[`f${i}.md`] = prose(`topic${i}`, 60, i + 10);
    await writeTree(big, files);
    await cli(ctx.env, 'store', 'create', 'Big');
    const tm = ctx.tmux;
    await tm.tmux('set-option', '-g', 'status-interval', '1');
    await tm.tmux('set-option', '-g', 'status-right-length', '60');
    await tm.tmux('set-option', '-g', 'status-right', '#(kortty-rag status --format tmux)');
    const statusLine = () => tm.screen().split('\n').at(-1) ?? '';
    await tm.waitForScreen(() => /RAG idle/.test(statusLine()), 'RAG idle before indexing');
    let failure: unknown;
    const job = cli(ctx.env, 'source', 'add', 'Big', big, '--yes').catch((err) => {
      failure = err;
    });
    const syncing = await waitFor(
      async () => {
        if (failure) throw failure;
        // No refresh-client -S here: a forced redraw restarts #() jobs before they can answer.
        return /RAG syncing Big (\d+)%/.exec(statusLine()) ?? undefined;
      },
      'syncing in the status line',
      60_000,
      100,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tm.screen()}`);
    });
    const percent = Number(syncing[1]);
    t.true(percent >= 0 && percent < 100, `percent ${percent}`);
    t.false(/RAG idle/.test(statusLine()));
    await job;
    await tm.waitForScreen(() => /RAG idle/.test(statusLine()), 'RAG idle after indexing', 30_000);
    t.notRegex(statusLine(), /syncing/);
  },
);

test.serial(
  '@kortty-rag-watch on starts one watcher, which stops cleanly with the tmux server',
  async (t) => {
    const s = await startTmux({ env: ctx.env });
    const lock = watcherLockPath(ctx.home);
    let killed = false;
    try {
      await s.tmux('set-option', '-g', '@kortty-rag-watch', 'on');
      await s.tmux('run-shell', TMUX_ENTRY);
      const owner = await waitFor(
        () =>
          readFile(join(lock, 'owner.json'), 'utf8').then(
            (x) => JSON.parse(x) as { pid: number },
            () => undefined,
          ),
        'the watcher lock',
      );
      t.notThrows(() => process.kill(owner.pid, 0));
      // A second watcher for the same $KORTTY_HOME is refused with a clear message.
      const second = await cli(ctx.env, 'watch').then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => err,
      );
      t.is(second.code, 1);
      t.regex(second.stderr, new RegExp(`a watcher is already running for .* \\(pid ${owner.pid}\\)`));
      await s.kill();
      killed = true;
      await waitFor(
        () =>
          stat(lock).then(
            () => undefined,
            () => true,
          ),
        'the watcher to release its lock',
        20_000,
      );
      // The lock goes first; the process exits (and is reaped) a moment later.
      const gone = await waitFor(
        () => {
          try {
            process.kill(owner.pid, 0);
            return undefined;
          } catch {
            return true;
          }
        },
        'the watcher process to exit',
        10_000,
      );
      t.true(gone);
    } finally {
      if (!killed) await s.kill();
    }
  },
);
