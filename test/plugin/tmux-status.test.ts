import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { createFakeOpenAI, defaultReply } from '../helpers/fake-openai.js';
import { stopQueryService } from '../helpers/query-service.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { BIN, ROOT, startTmux, TMUX_ENTRY, type TmuxEnv, waitFor } from './tmux-harness.js';

// The status line and the ask popup against a real tmux server with a real client in a pty:
// `@kortty-rag-status on` appends `#(cat …/rag/status.tmux)` to the user's status-right, and what
// tmux shows is the pre-rendered file that jobs rewrite as they progress; the ask popup shows
// "Retrieving from N stores…" and the excerpts before the model has said a word.

const run = promisify(execFile);
const cli = (env: NodeJS.ProcessEnv, ...args: string[]) => run(process.execPath, [BIN, ...args], { env });

interface Ctx {
  home: string;
  work: string;
  env: NodeJS.ProcessEnv;
  tmux: TmuxEnv;
}
let ctx: Ctx;

test.before(async () => {
  const home = await homeWithStarter();
  const work = await mkdtemp(join(tmpdir(), 'kortty-tmux-status-'));
  const env: NodeJS.ProcessEnv = { ...process.env, KORTTY_HOME: home, TMPDIR: work, PS1: '$ ' };
  const docs = join(work, 'docs');
  await writeTree(docs, {
    'kiwi.md': `# Kiwi orchard\n\nThe kiwi orchard irrigation runs every Tuesday.\n${prose('kiwi orchard irrigation', 6, 3)}`,
    'bikes.md': prose('bicycles', 12, 4),
  });
  await cli(env, 'store', 'create', 'Notes', '--role', 'text');
  await cli(env, 'source', 'add', 'Notes', docs, '--yes');
  const tmux = await startTmux({ env });
  ctx = { home, work, env, tmux };
});

test.after.always(async () => {
  await ctx?.tmux.kill();
  if (ctx) {
    await stopQueryService(ctx.home);
    await rm(ctx.work, { recursive: true, force: true });
  }
});

const statusLine = () => ctx.tmux.screen().split('\n').at(-1) ?? '';

test.serial(
  '@kortty-rag-status on appends the pre-rendered line to the existing status-right, once',
  async (t) => {
    const tm = ctx.tmux;
    await tm.tmux('set-option', '-g', 'status-interval', '1');
    await tm.tmux('set-option', '-g', 'status-right', 'USER-RIGHT #{session_name}');
    await tm.tmux('set-option', '-g', '@kortty-rag-status', 'on');
    await tm.tmux('run-shell', TMUX_ENTRY); // what TPM does
    const snippet = `#(cat '${ctx.home}/rag/status.tmux' 2>/dev/null)`;
    t.is(
      (await tm.tmux('show-option', '-gqv', 'status-right')).trimEnd(),
      `USER-RIGHT #{session_name} ${snippet}`,
    );
    t.true(Number((await tm.tmux('show-option', '-gqv', 'status-right-length')).trim()) >= 80);

    // Reloading the plugin (tmux.conf sourced again, TPM run again) adds nothing.
    await tm.tmux('run-shell', TMUX_ENTRY);
    await tm.tmux('run-shell', TMUX_ENTRY);
    t.is(
      (await tm.tmux('show-option', '-gqv', 'status-right')).trimEnd(),
      `USER-RIGHT #{session_name} ${snippet}`,
    );

    // tmux shows the user's part and the line from the file.
    await tm.waitForScreen(
      () => /USER-RIGHT main RAG idle/.test(statusLine()),
      'both parts in the status line',
    );
    t.is(await readFile(join(ctx.home, 'rag', 'status.tmux'), 'utf8'), '#[fg=green]RAG idle#[default]\n');
  },
);

test.serial('a running job’s progress reaches the status line through the pre-rendered file', async (t) => {
  const tm = ctx.tmux;
  const right = await tm.tmux('show-option', '-gqv', 'status-right');
  t.regex(
    right,
    /#\(cat '[^']+\/rag\/status\.tmux' 2>\/dev\/null\)/,
    'no kortty-rag process runs for the line',
  );
  t.notRegex(right, /kortty-rag(\.js)? status/);
  const big = join(ctx.work, 'big');
  const files: Record<string, string> = {};
  for (let i = 0; i < 80; i++) files[`f${i}.md`] = prose(`topic${i}`, 60, i + 10);
  await writeTree(big, files);
  await cli(ctx.env, 'store', 'create', 'Big');
  let failure: unknown;
  const job = cli(ctx.env, 'source', 'add', 'Big', big, '--yes').catch((err) => {
    failure = err;
  });
  const seen = new Set<number>();
  await waitFor(
    async () => {
      if (failure) throw failure;
      const m = /RAG syncing Big (\d+)%/.exec(statusLine());
      if (m) seen.add(Number(m[1]));
      return seen.size > 0 ? true : undefined;
    },
    'syncing in the status line',
    120_000,
    50,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${tm.screen()}`);
  });
  await job;
  for (const p of seen) t.true(p >= 0 && p < 100, `percent ${p}`);
  await tm.waitForScreen(() => /RAG idle/.test(statusLine()), 'RAG idle after the job', 30_000);
  t.notRegex(statusLine(), /syncing/);
});

test.serial(
  'the ask popup shows "Retrieving from N stores…" and the excerpts before the answer',
  async (t) => {
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const fake = await createFakeOpenAI({
      reply: async (body) => {
        await gate; // the model "thinks" until the test has seen the popup
        return defaultReply(body);
      },
    });
    const tm = ctx.tmux;
    try {
      await cli(
        ctx.env,
        'profile',
        'add',
        'fake',
        '--base-url',
        fake.url,
        '--model',
        'scripted',
        '--role',
        'text',
      );
      await tm.tmux('set-option', '-g', '@kortty-rag-popup-size', '95%x60%');
      await tm.tmux('set-buffer', '--', 'when does the kiwi orchard irrigation run');
      const client = (await tm.tmux('list-clients', '-F', '#{client_name}')).trim();
      await tm.tmux('run-shell', '-b', `'${join(ROOT, 'plugin/tmux/kortty-rag.sh')}' ask-buffer '${client}'`);
      const before = await tm.waitForScreen(
        (s) => s.includes('Retrieving from 1 store…') && /\[R1\] \S+kiwi\.md:\d+ \(Notes\)/.test(s),
        'the retrieving line and the excerpts',
        120_000,
      );
      t.notRegex(before, /According to/, 'no answer yet');
      // The model is asked with those excerpts and holds its reply until the gate opens.
      await waitFor(() => fake.requests.length === 1 || undefined, 'the chat request', 60_000);
      t.true(fake.requests[0]!.body.messages!.some((m) => /kiwi\.md/.test(m.content ?? '')));
      t.notRegex(tm.screen(), /According to/);
      open();
      const after = await tm.waitForScreen(
        (s) => /According to the retrieved context \[R1\]/.test(s) && s.includes('press any key to close'),
        'the answer',
        60_000,
      );
      const rows = after.split('\n');
      const row = (re: RegExp) => rows.findIndex((l) => re.test(l));
      t.true(row(/Retrieving from 1 store…/) < row(/\[R1\] \S+kiwi\.md:\d+ \(Notes\)/));
      t.true(row(/\[R1\] \S+kiwi\.md:\d+ \(Notes\)/) < row(/According to the retrieved context/));
      tm.type('q');
      await tm.waitForScreen((s) => !s.includes('press any key to close'), 'the popup to close');
    } finally {
      open();
      await fake.close();
    }
  },
);
