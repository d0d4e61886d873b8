import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { stopQueryService } from '../helpers/query-service.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { cliOnPath, ROOT, startTmux, TMUX_ENTRY, type TmuxEnv, waitFor } from './tmux-harness.js';

// "Ask about the last command" end to end: a real bash with the shell integration
// (`kortty-rag shell-init bash`) in a real tmux pane, the plugin loaded through its TPM entry, a
// failing command, the plugin's key, the popup running `kortty-rag ask --last` through the warm
// query service, and the scripted OpenAI-compatible backend in its own process recording what
// the model was sent.

const PREFIX = '\x02'; // C-b
const TOKEN = 'Zk9vYmFyYmF6cXV4MTIzNDU2Nzg5';

interface Ctx {
  home: string;
  work: string;
  record: string;
  backend: ChildProcess;
  tmux: TmuxEnv;
}
let ctx: Ctx;

test.before(async () => {
  const home = await homeWithStarter();
  const work = await mkdtemp(join(tmpdir(), 'kortty-tmux-last-'));
  const record = join(work, 'requests.jsonl');
  const urlFile = join(work, 'url');
  const backend = spawn(
    process.execPath,
    [join(ROOT, 'dist/test/helpers/fake-openai-main.js'), '--url-file', urlFile, '--record', record],
    { stdio: 'ignore' },
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
    TMPDIR: join(work, 'tmp'),
    PATH: `${binDir}:${process.env.PATH}`,
    HOME: work,
  };
  await mkdir(join(work, 'tmp'));
  const docs = join(work, 'docs');
  await writeTree(docs, {
    'ls.md': `# ls cannot access\n\n"ls: cannot access: No such file or directory" means the path does not exist; check the spelling.\n${prose('paths', 6, 3)}`,
    'bikes.md': prose('bicycles', 12, 4),
  });
  const cli = (...args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const c = spawn(join(binDir, 'kortty-rag'), args, { env, stdio: 'ignore' });
      c.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`kortty-rag ${args.join(' ')}: ${code}`)),
      );
    });
  await cli('profile', 'add', 'fake', '--base-url', url, '--model', 'scripted', '--role', 'text');
  await cli('store', 'create', 'Notes', '--role', 'text');
  await cli('source', 'add', 'Notes', docs, '--yes');
  // What the user keeps in ~/.bashrc: a prompt, then the one line of the README.
  const rc = join(work, 'bashrc');
  await writeFile(rc, `PS1='kr$ '\nHISTFILE=/dev/null\neval "$(kortty-rag shell-init bash)"\n`);
  // A file whose text holds a secret and escape sequences (colour, a title change).
  await writeFile(
    join(work, 'curl.log'),
    `> GET /v1/items HTTP/1.1\n> Authorization: Bearer ${TOKEN}\n\x1b[31mred\x1b]0;pwned-title\x07\x1b[0m\n`,
  );
  const tmux = await startTmux({ env, rows: 40, shellCommand: `bash --noprofile --rcfile '${rc}' -i` });
  await tmux.tmux('set-option', '-g', '@kortty-rag-popup-size', '95%x70%');
  await tmux.tmux('run-shell', TMUX_ENTRY);
  ctx = { home, work, record, backend, tmux };
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

test.serial('the key is bound: prefix + O, and it is free in tmux’s own table', async (t) => {
  const prefix = await ctx.tmux.tmux('list-keys', '-T', 'prefix');
  t.regex(
    prefix,
    /bind-key\s+-T prefix\s+O\s+run-shell -b .*kortty-rag\.sh' ask-last '#\{client_name\}' '#\{pane_id\}'/,
  );
  const s = await startTmux({ env: ctx.tmux.env });
  try {
    const own = await s.tmux('list-keys', '-T', 'prefix');
    t.notRegex(own, /-T prefix\s+O\s/, 'prefix + O is not a tmux default');
    t.regex(own, /-T prefix\s+L\s+switch-client -l/, 'prefix + L is (so it is not ours)');
  } finally {
    await s.kill();
  }
});

test.serial(
  'a failing command → the key → the popup asks about it; the model gets it in order, redacted',
  async (t) => {
    const tm = ctx.tmux;
    await tm.waitForScreen((s) => s.split('\n').some((l) => l.trimEnd() === 'kr$'), 'the bash prompt');
    const before = (await requests()).length;
    await tm.tmux(
      'send-keys',
      '-t',
      'main',
      `cat '${join(ctx.work, 'curl.log')}'; ls /nonexistent-kortty`,
      'Enter',
    );
    // The next prompt is drawn after the shell recorded the command's end.
    await tm.waitForScreen((s) => {
      // (the last screen row is tmux's status line)
      const rows = s
        .split('\n')
        .slice(0, -1)
        .filter((l) => l.trim() !== '');
      return rows.at(-1)?.trimEnd() === 'kr$' && /No such file or directory/.test(rows.at(-2) ?? '');
    }, 'the error and the next prompt');
    tm.type(`${PREFIX}O`);
    const screen = await tm.waitForScreen(
      (s) => s.includes('press any key to close') && s.includes('Sources:'),
      'the popup with the answer',
      60_000,
    );
    t.regex(screen, /Last command: \$ cat '.*curl\.log'; ls \/nonexistent-kortty\s+\(exit 2\)/);
    t.regex(screen, /1 secret redacted: Authorization header/);
    t.regex(screen, /> Authorization: Bearer \[redacted\]/);
    t.regex(screen, /│\s*red\s*│?/m, 'the coloured line is shown as its text');
    // The popup's own rows (the pane behind it still shows what cat printed).
    const popup = screen
      .split('\n')
      .map((l) => /│(.*)│/.exec(l)?.[1] ?? '')
      .join('\n');
    t.true(popup.includes('Last command:'));
    t.false(popup.includes(TOKEN), 'the popup never shows the token');
    t.regex(screen, /Retrieving from 1 store/);
    t.regex(screen, /\[R1\] .*ls\.md/);

    const reqs = await requests();
    t.is(reqs.length, before + 1);
    const body = reqs.at(-1)!;
    const raw = JSON.stringify(body);
    t.false(raw.includes(TOKEN), 'the token never reaches the model');
    t.false(raw.includes('\\u001b'), 'no escape sequence reaches the model');
    const system = body.messages[0]!.content!;
    const user = body.messages.at(-1)!.content!;
    // The prompt's fixed order: the retrieved block in the system part, then the user's text:
    // command, bounded output, exit code, the preset's request.
    const flat = `${system}\n\n${user}`;
    const at = (needle: string) => {
      const i = flat.indexOf(needle);
      t.true(i >= 0, `missing ${needle}\n${flat}`);
      return i;
    };
    const order = [
      at('<retrieved_context'),
      at('/docs/ls.md'),
      at('</retrieved_context>'),
      at('<terminal_selection>'),
      at(`$ cat '${join(ctx.work, 'curl.log')}'; ls /nonexistent-kortty`),
      at('> Authorization: Bearer [redacted]'),
      at('red'),
      at("ls: cannot access '/nonexistent-kortty': No such file or directory"),
      at('</terminal_selection>'),
      at('The command above exited with code 2.'),
      at('Why did this fail and how do I fix it?'),
    ];
    t.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    );
    t.false(system.includes('nonexistent-kortty'), 'the captured text stays in the user part');
    tm.type('q');
    await tm.waitForScreen((s) => !s.includes('press any key to close'), 'the popup to close');
  },
);
