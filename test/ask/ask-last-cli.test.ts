import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { readRuns } from '../../src/ai/runs-file.js';
import { runsDir } from '../../src/storage/paths.js';
import { createFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';

// `kortty-rag ask --last --stdin` (what the WezTerm plugin runs) as a real process against a real
// store and the loopback OpenAI-compatible fake: what reaches the model, what the popup shows,
// what the run record keeps, and what is never sent.

const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));

const BEARER = 'Zk9vYmFyYmF6cXV4MTIzNDU2Nzg5';
const AWS = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

interface World {
  home: string;
  fake: FakeOpenAI;
  env: NodeJS.ProcessEnv;
}
let w: World;

test.before(async () => {
  const home = await homeWithStarter();
  const fake = await createFakeOpenAI();
  const env = { ...process.env, KORTTY_HOME: home };
  const docs = await mkdtemp(join(tmpdir(), 'kortty-last-docs-'));
  await writeTree(docs, {
    'network.md': `# Connection refused\n\ncurl error 7 connection refused means no server listens on the port; start the service first.\n${prose('network', 6, 2)}`,
  });
  const cli = (...args: string[]) => run(env, args);
  await cli('profile', 'add', 'fake', '--base-url', fake.url, '--model', 'm', '--role', 'text');
  await cli('store', 'create', 'Notes', '--role', 'text');
  await cli('source', 'add', 'Notes', docs, '--yes');
  w = { home, fake, env };
});

test.after.always(async () => {
  await w?.fake.close();
});

function run(
  env: NodeJS.ProcessEnv,
  args: string[],
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    child.stdin!.end(stdin ?? '');
  });
}

const askLast = (json: object, ...extra: string[]) =>
  run(w.env, ['ask', '--last', '--stdin', '--no-service', ...extra], JSON.stringify(json));

test.serial('a failed command: redacted, in order, shown sanitized, recorded by kind', async (t) => {
  const before = w.fake.requests.length;
  const res = await askLast({
    command: `curl -H 'Authorization: Bearer ${BEARER}' http://localhost:9/x`,
    output: `\x1b]52;c;cm0gLXJmIH4=\x07\x1b[31mcurl: (7) Failed to connect: Connection refused\x1b[0m\nAWS_SECRET_ACCESS_KEY=${AWS}\n`,
    exitCode: 7,
  });
  t.is(res.code, 0, res.stderr);
  t.is(w.fake.requests.length, before + 1);
  const body = w.fake.requests.at(-1)!.body;
  const raw = JSON.stringify(body);
  t.false(raw.includes(BEARER), 'the bearer token never leaves');
  t.false(raw.includes(AWS), 'the AWS secret never leaves');
  const [system, user] = [body.messages![0]!.content!, body.messages!.at(-1)!.content!];
  t.true(system.includes('<retrieved_context'), 'the retrieved block is in the system part');
  t.false(system.includes('curl -H'), 'the captured text never reaches the system part');
  const at = (needle: string) => {
    const i = user.indexOf(needle);
    t.true(i >= 0, `missing ${needle} in\n${user}`);
    return i;
  };
  const order = [
    at('<terminal_selection>'),
    at("$ curl -H 'Authorization: Bearer [redacted]' http://localhost:9/x"),
    at('curl: (7) Failed to connect: Connection refused'),
    at('AWS_SECRET_ACCESS_KEY=[redacted]'),
    at('</terminal_selection>'),
    at('The command above exited with code 7.'),
    at('Why did this fail and how do I fix it?'),
  ];
  t.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
  t.false(user.includes('\x1b'), 'no escape sequence reaches the model');

  // The popup (stderr) shows the capture through the sanitizer, then what was redacted.
  t.false(/[\x00-\x08\x0b-\x1f\x7f]/.test(res.stderr), 'no control character reaches the terminal');
  t.true(
    res.stderr.includes(
      "Last command: $ curl -H 'Authorization: Bearer [redacted]' http://localhost:9/x  (exit 7)",
    ),
  );
  t.true(res.stderr.includes('\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[31mcurl: (7)'), res.stderr);
  t.true(res.stderr.includes('2 secrets redacted: Authorization header, AWS secret'), res.stderr);
  t.true(res.stderr.indexOf('2 secrets redacted') < res.stderr.indexOf('Retrieving from 1 store'));

  const runs = await readRuns({ dir: runsDir(w.home) });
  const rec = runs.records.at(-1)!;
  t.deepEqual(rec.lastCommand, { exitCode: 7, truncated: false, marks: true });
  t.deepEqual(rec.redactions, [
    { kind: 'Authorization header', count: 1 },
    { kind: 'AWS secret', count: 1 },
  ]);
  t.true(rec.query.startsWith("curl -H 'Authorization: Bearer [redacted]'"), rec.query);
  t.true(rec.query.includes('Connection refused'));
  const file = JSON.stringify(runs.records);
  t.false(file.includes(BEARER) || file.includes(AWS), 'the run log never holds a secret');
});

test.serial('a capture bigger than the bound is cut to its last lines, never sent whole', async (t) => {
  const lines = Array.from({ length: 5000 }, (_, i) => `row-${i}`);
  const res = await askLast({ command: 'seq', output: `${lines.join('\n')}\n`, exitCode: 0 }, '--json');
  t.is(res.code, 0, res.stderr);
  const user = w.fake.requests.at(-1)!.body.messages!.at(-1)!.content!;
  t.false(user.includes('row-0\n'));
  t.false(user.includes('row-4799\n'));
  t.true(user.includes('row-4999'));
  t.true(user.includes('The command above exited with code 0. Its output was cut to its last lines.'));
  t.true(user.includes('Explain this output'));
  const out = JSON.parse(res.stdout);
  t.deepEqual(out.lastCommand, { command: 'seq', exitCode: 0, truncated: true, marks: true });
  t.deepEqual(out.redactions, []);
});

test.serial('no exit code (WezTerm keeps none): the preset request for an unknown outcome', async (t) => {
  const res = await askLast({ command: 'make', output: 'make: *** No rule to make target.  Stop.\n' });
  t.is(res.code, 0, res.stderr);
  t.true(res.stderr.includes('Last command: $ make  (exit code not known)'));
  const user = w.fake.requests.at(-1)!.body.messages!.at(-1)!.content!;
  t.true(user.includes('The exit code of the command above is not known.'));
  t.true(user.includes('if it shows that the command failed'));
});

test.serial('usage: --pane needs --last; --last reads no --file; bad JSON names stdin', async (t) => {
  const a = await run(w.env, ['ask', '--pane', '%1', 'hello']);
  t.is(a.code, 2);
  t.regex(a.stderr, /--pane goes with --last/);
  const b = await run(w.env, ['ask', '--last', '--file', '/etc/hostname']);
  t.is(b.code, 2);
  t.regex(b.stderr, /--last reads the command from tmux or --stdin, not --file/);
  const c = await run(w.env, ['ask', '--last', '--stdin', '--no-service'], '{"command": 1}');
  t.is(c.code, 1);
  t.regex(c.stderr, /stdin/);
  const env = { ...w.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const d = await run(env, ['ask', '--last', '--no-service']);
  t.is(d.code, 1);
  t.is(d.stderr.trim().split('\n').length, 1, d.stderr);
  t.regex(d.stderr, /cannot read the last command: not inside tmux/);
});
