import { spawn } from 'node:child_process';
import { chmod, chown, lstat, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { serviceDir, serviceLockPath, serviceSocketPath } from '../../src/storage/paths.js';
import { createFakeOpenAI, defaultReply } from '../helpers/fake-openai.js';
import { prose, writeTree } from '../helpers/store-env.js';
import {
  alive,
  answeredBy,
  BIN,
  cli,
  firstPath,
  kill,
  servicePid,
  type World,
  waitFor,
  world,
  writeConfig,
} from './helpers.js';

// The query service as users meet it: real `kortty-rag` processes, a real detached service on a
// real Unix socket, the generated starter model and real snapshots written by real syncs.

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const worlds: World[] = [];

async function setup(service: Record<string, unknown> = {}): Promise<World> {
  const w = await world(service);
  worlds.push(w);
  return w;
}

test.afterEach.always(async () => {
  for (const w of worlds.splice(0)) {
    await kill(await servicePid(w.home));
    await rm(w.docs, { recursive: true, force: true });
    await rm(w.home, { recursive: true, force: true });
  }
});

const search = (w: World, ...args: string[]) => cli(w.env, ['search', '--verbose', ...args]);

/** Starts the service through a first search and returns its pid. */
async function warm(t: { is: (a: unknown, b: unknown, m?: string) => void }, w: World): Promise<number> {
  const r = await search(w, '--json', 'kiwi orchard irrigation');
  t.is(r.code, 0, r.stderr);
  const pid = answeredBy(r.stderr);
  if (pid === undefined) throw new Error(`the service did not answer:\n${r.stderr}`);
  return pid;
}

test.serial(
  'search starts the query service on first use; its answer is byte for byte the in-process one',
  async (t) => {
    const w = await setup();
    const first = await search(w, '--json', 'kiwi orchard irrigation');
    t.is(first.code, 0, first.stderr);
    t.regex(first.stderr, /starting the query service/);
    const pid = answeredBy(first.stderr);
    t.truthy(pid, first.stderr);
    t.is(await servicePid(w.home), pid, 'the lock names the service that answered');
    t.true(alive(pid!));

    // Owner-only: a 0700 directory and a 0600 socket, both ours.
    const dir = await lstat(serviceDir(w.home));
    const sock = await lstat(serviceSocketPath(w.home));
    t.is(dir.mode & 0o777, 0o700);
    t.true(sock.isSocket());
    t.is(sock.mode & 0o777, 0o600);
    t.is(sock.uid, process.getuid!());

    const inProcess = await cli(w.env, ['search', '--json', '--no-service', 'kiwi orchard irrigation']);
    t.is(inProcess.code, 0, inProcess.stderr);
    const a = JSON.parse(first.stdout);
    const b = JSON.parse(inProcess.stdout);
    t.true(a.block.length > 0);
    t.is(a.block, b.block, 'the same block bytes');
    t.deepEqual(a.excerpts, b.excerpts);
    t.regex(firstPath(first.stdout)!, /kiwi\.md$/);

    // The plain rendering too, and the second search is warm on the same service.
    const plain = await search(w, 'tar archive listing');
    const plainIn = await cli(w.env, ['search', '--no-service', 'tar archive listing']);
    t.is(answeredBy(plain.stderr), pid);
    t.is(plain.stdout, plainIn.stdout);
    t.regex(plain.stdout, /\[R1\] \S+tar\.md/);
  },
);

test.serial('two concurrent clients each get their own correct answer', async (t) => {
  const w = await setup();
  const pid = await warm(t, w);
  const queries = [
    ['kiwi orchard irrigation', /kiwi\.md$/],
    ['tar archive listing', /tar\.md$/],
    ['bicycle chain lubrication', /bikes\.md$/],
  ] as const;
  const runs = await Promise.all(
    [0, 1, 2, 3, 4, 5].map((i) => search(w, '--json', queries[i % 3]![0]).then((r) => ({ r, i }))),
  );
  for (const { r, i } of runs) {
    t.is(r.code, 0, r.stderr);
    t.is(answeredBy(r.stderr), pid, r.stderr);
    t.regex(firstPath(r.stdout)!, queries[i % 3]![1]);
  }
});

test.serial(
  'a snapshot activated by a sync while the service runs is picked up without a restart',
  async (t) => {
    const w = await setup();
    const pid = await warm(t, w);
    const before = await search(w, '--json', 'walrus tusk ivory');
    t.notRegex(firstPath(before.stdout) ?? '', /walrus\.md$/);
    const gen0 = JSON.parse((await cli(w.env, ['service', 'status', '--json'])).stdout).service.generation;

    await writeTree(w.docs, { 'walrus.md': `# Walrus\n\n${prose('walrus tusk ivory', 10, 11)}` });
    const sync = await cli(w.env, ['source', 'update', 'Notes', '--yes']);
    t.is(sync.code, 0, sync.stderr);

    const after = await search(w, '--json', 'walrus tusk ivory');
    t.is(answeredBy(after.stderr), pid, 'the same service, not a restart');
    t.regex(firstPath(after.stdout)!, /walrus\.md$/);
    const status = JSON.parse((await cli(w.env, ['service', 'status', '--json'])).stdout);
    t.true(status.service.generation > gen0, 'the store generation went up');
    t.is(status.service.pid, pid);
  },
);

test.serial(
  'a store.json edit (a source disabled, then enabled) is picked up without a restart',
  async (t) => {
    const w = await setup();
    const pid = await warm(t, w);
    const more = await mkdtemp(join(tmpdir(), 'kortty-svc-more-'));
    try {
      await writeTree(more, { 'penguin.md': `# Penguins\n\n${prose('penguin colony huddle', 10, 13)}` });
      t.is((await cli(w.env, ['source', 'add', 'Notes', more, '--yes'])).code, 0);
      const on = await search(w, '--json', 'penguin colony huddle');
      t.is(answeredBy(on.stderr), pid);
      t.regex(firstPath(on.stdout)!, /penguin\.md$/);

      t.is((await cli(w.env, ['source', 'disable', 'Notes', more])).code, 0);
      const off = await search(w, '--json', 'penguin colony huddle');
      t.is(answeredBy(off.stderr), pid);
      const paths = (JSON.parse(off.stdout).excerpts as { path: string }[]).map((e) => e.path);
      t.false(
        paths.some((p) => p.endsWith('penguin.md')),
        'a disabled source is not searched',
      );

      t.is((await cli(w.env, ['source', 'enable', 'Notes', more])).code, 0);
      const again = await search(w, '--json', 'penguin colony huddle');
      t.is(answeredBy(again.stderr), pid);
      t.regex(firstPath(again.stdout)!, /penguin\.md$/);
    } finally {
      await rm(more, { recursive: true, force: true });
    }
  },
);

test.serial(
  'a killed service leaves a stale socket; the next search still works and starts a new one',
  async (t) => {
    const w = await setup();
    const pid = await warm(t, w);
    await kill(pid);
    t.true((await lstat(serviceSocketPath(w.home))).isSocket(), 'the dead service left its socket behind');
    const r = await search(w, '--json', 'tar archive listing');
    t.is(r.code, 0, r.stderr);
    t.regex(firstPath(r.stdout)!, /tar\.md$/);
    const next = answeredBy(r.stderr);
    t.truthy(next, r.stderr);
    t.not(next, pid);
    t.is(await servicePid(w.home), next);
  },
);

test.serial('a killed service with starting turned off: the command falls back in-process', async (t) => {
  const w = await setup();
  const pid = await warm(t, w);
  await kill(pid);
  await writeConfig(w.home, { answerTimeoutMs: 60_000, startTimeoutMs: 50 });
  // Nobody can start in 50 ms: the command says so with --verbose and works in-process.
  const r = await search(w, '--json', 'tar archive listing');
  t.is(r.code, 0, r.stderr);
  t.regex(firstPath(r.stdout)!, /tar\.md$/);
  t.is(answeredBy(r.stderr), undefined);
  t.regex(r.stderr, /query service not used \(.*\); searching in-process/);
});

test.serial(
  'a hung service (SIGSTOP) is given up on after the answer timeout; the command works in-process',
  async (t) => {
    const w = await setup();
    const pid = await warm(t, w);
    await writeConfig(w.home, { answerTimeoutMs: 1000, startTimeoutMs: 60_000 });
    process.kill(pid, 'SIGSTOP');
    try {
      const r = await search(w, '--json', 'bicycle chain lubrication');
      t.is(r.code, 0, r.stderr);
      t.regex(firstPath(r.stdout)!, /bikes\.md$/);
      t.is(answeredBy(r.stderr), undefined);
      t.regex(
        r.stderr,
        new RegExp(
          `query service not used \\(the query service \\(pid ${pid}\\) did not answer within 1000 ms\\); searching in-process`,
        ),
      );
      // Without --verbose the fallback is silent: the user only sees the answer.
      const quiet = await cli(w.env, ['search', 'bicycle chain lubrication']);
      t.is(quiet.code, 0);
      t.is(quiet.stderr, '');
    } finally {
      process.kill(pid, 'SIGCONT');
      await kill(pid);
    }
  },
);

test.serial(
  'a socket or directory owned by another user or open to others is refused, and the command works in-process',
  async (t) => {
    const w = await setup();
    const pid = await warm(t, w);
    const dir = serviceDir(w.home);
    const sock = serviceSocketPath(w.home);
    const expectRefused = async (what: RegExp, verbose = false) => {
      // Refusals are shown without --verbose too: the user has something to fix.
      const r = verbose
        ? await search(w, '--json', 'kiwi orchard irrigation')
        : await cli(w.env, ['search', '--json', 'kiwi orchard irrigation']);
      t.is(r.code, 0, r.stderr);
      t.regex(firstPath(r.stdout)!, /kiwi\.md$/);
      t.is(answeredBy(r.stderr), undefined, 'the service was not used');
      t.regex(r.stderr, what);
      if (verbose) t.regex(r.stderr, /query service not used \(.*\); searching in-process/);
    };

    await chmod(sock, 0o666);
    await expectRefused(
      /not using the query service: \S+query\.sock: the query service socket has mode 0666, open to other users; it must be 0600/,
      true,
    );
    await chmod(sock, 0o600);
    t.is(answeredBy((await search(w, 'kiwi')).stderr), pid, 'usable again once fixed');

    await chmod(dir, 0o755);
    await expectRefused(
      /not using the query service: \S+rag\/service: the query service directory has mode 0755, open to other users; it must be 0700/,
    );
    await chmod(dir, 0o700);

    if (isRoot) {
      await chown(sock, NOBODY, NOBODY);
      await expectRefused(/query\.sock: the query service socket belongs to uid 65534, not to you \(uid 0\)/);
      await chown(sock, 0, 0);
      await chown(dir, NOBODY, NOBODY);
      await expectRefused(
        /rag\/service: the query service directory belongs to uid 65534, not to you \(uid 0\)/,
      );
      // The service itself refuses such a directory too.
      await kill(pid);
      const run = await cli(w.env, ['service', 'run']);
      t.is(run.code, 1);
      t.regex(run.stderr, /the query service directory belongs to uid 65534/);
      await chown(dir, 0, 0);
    } else {
      t.log('not root: the other-owner cases need chown and are covered when the suite runs as root');
    }
    // A symlink in place of the directory is never followed.
    await kill(await servicePid(w.home));
    await rm(dir, { recursive: true, force: true });
    const elsewhere = await mkdtemp(join(tmpdir(), 'kortty-svc-elsewhere-'));
    const { symlink } = await import('node:fs/promises');
    await symlink(elsewhere, dir);
    await expectRefused(/rag\/service: the query service directory is a symbolic link; remove it/);
    await rm(elsewhere, { recursive: true, force: true });
  },
);

test.serial('the service exits after its idle time, removing its socket and lock', async (t) => {
  const w = await setup({ idleMinutes: 0.03 }); // 1.8 s
  const pid = await warm(t, w);
  await waitFor(() => !alive(pid), 'the idle service to exit');
  await t.throwsAsync(lstat(serviceSocketPath(w.home)), { code: 'ENOENT' });
  await t.throwsAsync(stat(serviceLockPath(w.home)), { code: 'ENOENT' });
  // And the next search starts a fresh one.
  const r = await search(w, '--json', 'kiwi orchard irrigation');
  t.truthy(answeredBy(r.stderr));
  t.not(answeredBy(r.stderr), pid);
});

test.serial(
  'concurrent first searches start exactly one service; a second `service run` steps aside',
  async (t) => {
    const w = await setup();
    const runs = await Promise.all([0, 1, 2, 3].map(() => search(w, '--json', 'kiwi orchard irrigation')));
    const pids = new Set(runs.map((r) => answeredBy(r.stderr)));
    t.is(pids.size, 1, runs.map((r) => r.stderr).join('\n'));
    const [pid] = [...pids];
    t.truthy(pid);
    for (const r of runs) t.regex(firstPath(r.stdout)!, /kiwi\.md$/);
    t.is(await servicePid(w.home), pid);
    // Every other service those commands launched has exited.
    const launched = runs.flatMap((r) =>
      [...r.stderr.matchAll(/starting the query service \(pid (\d+)\)/g)].map((m) => Number(m[1])),
    );
    t.true(launched.length >= 1);
    for (const p of launched)
      if (p !== pid) await waitFor(() => !alive(p), `launched service ${p} to step aside`);

    const second = await cli(w.env, ['service', 'run']);
    t.is(second.code, 0);
    t.regex(second.stdout, new RegExp(`a query service is already running for .* \\(pid ${pid}\\)`));
    t.true(alive(pid!));
  },
);

test.serial('service status and stop', async (t) => {
  const w = await setup();
  const none = await cli(w.env, ['service', 'status']);
  t.is(none.code, 1);
  t.regex(none.stdout, /no query service: no query service is running/);
  const pid = await warm(t, w);
  const s = JSON.parse((await cli(w.env, ['service', 'status', '--json'])).stdout);
  t.is(s.running, true);
  t.is(s.service.pid, pid);
  t.is(s.service.host, 'standalone');
  t.is(s.service.warm, true);
  t.is(s.service.idleMinutes, 15);
  t.is(s.status.stores, 1, 'it answers the status too');
  const stop = await cli(w.env, ['service', 'stop']);
  t.is(stop.code, 0);
  t.regex(stop.stdout, new RegExp(`stopped the query service \\(pid ${pid}\\)`));
  await waitFor(() => !alive(pid), 'the service to stop');
  await t.throwsAsync(lstat(serviceSocketPath(w.home)), { code: 'ENOENT' });
});

test.serial(
  'a damaged config.json is reported with its path and field; the command still works',
  async (t) => {
    const w = await setup();
    await writeFile(join(w.home, 'rag', 'config.json'), JSON.stringify({ service: { idleMinutes: 'soon' } }));
    const r = await search(w, '--json', 'kiwi orchard irrigation');
    t.is(r.code, 0);
    t.regex(firstPath(r.stdout)!, /kiwi\.md$/);
    t.regex(
      r.stderr,
      /rag\/config\.json: damaged configuration: service\.idleMinutes: expected a number, found the string "soon"; not using the query service/,
    );
    t.is(await servicePid(w.home), undefined);
    await writeFile(join(w.home, 'rag', 'config.json'), JSON.stringify({ service: { enabled: false } }));
    const off = await search(w, '--json', 'kiwi orchard irrigation');
    t.regex(off.stderr, /turned off \(service\.enabled is false/);
    t.is(await servicePid(w.home), undefined);
  },
);

test.serial('an unknown store is the same error through the service as in-process', async (t) => {
  const w = await setup();
  await warm(t, w);
  const viaService = await search(w, '--store', 'Nope', 'kiwi');
  const inProcess = await cli(w.env, ['search', '--no-service', '--store', 'Nope', 'kiwi']);
  t.is(viaService.code, 1);
  t.is(inProcess.code, 1);
  t.is(
    viaService.stderr
      .split('\n')
      .filter((l) => !l.includes('query service'))
      .join('\n'),
    inProcess.stderr,
  );
  t.regex(inProcess.stderr, /no store named "Nope"/);
});

test.serial('the watcher hosts the service with --serve', async (t) => {
  const w = await setup();
  const watcher = spawn(process.execPath, [BIN, 'watch', '--serve', '--poll-ms', '200'], {
    env: w.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  watcher.stdout.on('data', (d) => {
    log += d;
  });
  try {
    await waitFor(() => /query service listening/.test(log), 'the watcher to host the service');
    const r = await search(w, '--json', 'tar archive listing');
    t.is(answeredBy(r.stderr), watcher.pid);
    t.regex(firstPath(r.stdout)!, /tar\.md$/);
    const s = JSON.parse((await cli(w.env, ['service', 'status', '--json'])).stdout);
    t.is(s.service.host, 'watcher');
  } finally {
    watcher.kill('SIGTERM');
    await new Promise((r) => watcher.once('exit', r));
  }
  await t.throwsAsync(lstat(serviceSocketPath(w.home)), { code: 'ENOENT' });
  t.regex(log, /query service stopped/);
});

/** A raw protocol connection that collects the frames it receives. */
async function raw(path: string) {
  const sock = connect(path);
  await new Promise<void>((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', reject);
  });
  const frames: Record<string, unknown>[] = [];
  let buf = '';
  let closed = false;
  sock.on('data', (d) => {
    buf += d.toString('utf8');
    let nl = buf.indexOf('\n');
    while (nl >= 0) {
      frames.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
      nl = buf.indexOf('\n');
    }
  });
  sock.on('error', () => {});
  sock.on('close', () => {
    closed = true;
  });
  /** Frames of one type for one id (or id null), waited for. */
  const next = (type: string, id: string | null) =>
    waitFor(() => frames.find((f) => f.type === type && f.id === id), `a ${type} frame for ${id}`, 60_000);
  return { sock, frames, next, closed: () => closed };
}

test.serial('malformed requests and slow or silent clients do not hurt the service', async (t) => {
  const w = await setup();
  const pid = await warm(t, w);
  const path = serviceSocketPath(w.home);

  // Garbage, a wrong version, an unknown op and unknown fields each get an error; the connection
  // stays usable for a valid request afterwards.
  const c = await raw(path);
  c.sock.write('hello there\n');
  c.sock.write('{"v":2,"id":"v2","op":"status"}\n');
  c.sock.write('{"v":1,"id":"op","op":"exec","args":{}}\n');
  c.sock.write('{"v":1,"id":"fld","op":"search","args":{"query":"kiwi","path":"/etc/passwd"}}\n');
  const garbage = (await c.next('error', null)) as { error: { code: string; final: boolean } };
  t.is(garbage.error.code, 'BAD_REQUEST');
  t.false(garbage.error.final);
  t.is(((await c.next('error', 'v2')) as { error: { code: string } }).error.code, 'UNSUPPORTED_VERSION');
  t.regex(((await c.next('error', 'op')) as { error: { message: string } }).error.message, /unknown op/);
  t.regex(
    ((await c.next('error', 'fld')) as { error: { message: string } }).error.message,
    /unknown field path/,
  );
  // An over-long line (2 MiB) is refused without being buffered, and the next line is read.
  const big = Buffer.alloc(2 << 20, 0x61);
  c.sock.write(big);
  c.sock.write('\n{"v":1,"id":"after","op":"search","args":{"query":"tar archive listing"}}\n');
  const tooLarge = (await waitFor(
    () => c.frames.find((f) => f.type === 'error' && (f.error as { code: string }).code === 'TOO_LARGE'),
    'TOO_LARGE',
  )) as { error: { message: string } };
  t.regex(tooLarge.error.message, /longer than 1048576 bytes/);
  const after = (await c.next('result', 'after')) as { result: { excerpts: { path: string }[] } };
  t.regex(after.result.excerpts[0]!.path, /tar\.md$/);
  t.truthy(await c.next('accepted', 'after'));
  t.false(c.closed());

  // A slow client: half a request, then silence. Meanwhile others are answered.
  const slow = await raw(path);
  slow.sock.write('{"v":1,"id":"slow","op":"sea');
  const meanwhile = await search(w, '--json', 'bicycle chain lubrication');
  t.is(answeredBy(meanwhile.stderr), pid);
  t.regex(firstPath(meanwhile.stdout)!, /bikes\.md$/);
  // ... and when it finally finishes its line, it is answered too.
  slow.sock.write('rch","args":{"query":"kiwi orchard irrigation"}}\n');
  const slowAnswer = (await slow.next('result', 'slow')) as { result: { excerpts: { path: string }[] } };
  t.regex(slowAnswer.result.excerpts[0]!.path, /kiwi\.md$/);

  // Many pipelined requests without reading: each gets exactly one final frame (a result or BUSY).
  const flood = await raw(path);
  const ids = Array.from({ length: 40 }, (_, i) => `f${i}`);
  flood.sock.write(ids.map((id) => `{"v":1,"id":"${id}","op":"status"}\n`).join(''));
  await waitFor(
    () =>
      ids.every((id) => flood.frames.some((f) => f.id === id && (f.type === 'result' || f.type === 'error'))),
    'an answer to every pipelined request',
  );
  for (const id of ids) {
    const finals = flood.frames.filter((f) => f.id === id && (f.type === 'result' || f.type === 'error'));
    t.is(finals.length, 1, id);
    if (finals[0]!.type === 'error') t.is((finals[0]!.error as { code: string }).code, 'BUSY');
  }

  for (const x of [c, slow, flood]) x.sock.destroy();
  // Still the same healthy service.
  const last = await search(w, '--json', 'kiwi orchard irrigation');
  t.is(answeredBy(last.stderr), pid);
  t.true(alive(pid));
});

test.serial('ask retrieves through the service; progress goes to stderr, --json stays clean', async (t) => {
  const w = await setup();
  const fake = await createFakeOpenAI({ reply: (body) => defaultReply(body) });
  try {
    const add = await cli(w.env, [
      'profile',
      'add',
      'fake',
      '--base-url',
      fake.url,
      '--model',
      'scripted',
      '--role',
      'text',
      '--require-citations',
    ]);
    t.is(add.code, 0, add.stderr);
    const r = await cli(
      w.env,
      ['ask', '--verbose', '--stdin'],
      'when does the kiwi orchard irrigation run\n',
    );
    t.is(r.code, 0, r.stderr);
    const pid = answeredBy(r.stderr);
    t.truthy(pid, r.stderr);
    t.is(await servicePid(w.home), pid);
    // The retrieving line, then the excerpts' markers and paths, all on stderr.
    const lines = r.stderr.split('\n');
    const retrieving = lines.indexOf('Retrieving from 1 store…');
    t.true(retrieving >= 0, r.stderr);
    const first = lines.findIndex((l) => l.startsWith('  ['));
    t.true(first > retrieving, 'markers after the retrieving line');
    t.regex(lines[first]!, /^ {2}\[R1\] \S+kiwi\.md:\d+ \(Notes\)$/);
    // The answer (citing [R1]) and its sources on stdout, without the progress lines.
    t.regex(r.stdout, /According to the retrieved context \[R1\]/);
    t.regex(r.stdout, /Sources:\n {2}\[R1\] \S+kiwi\.md:\d+/);
    t.notRegex(r.stdout, /Retrieving/);
    // The model got exactly the block the in-process search renders.
    const inProcess = JSON.parse(
      (
        await cli(w.env, [
          'search',
          '--json',
          '--no-service',
          '--context-window',
          '8192',
          'when does the kiwi orchard irrigation run',
        ])
      ).stdout,
    );
    const sent = fake.requests
      .at(-1)!
      .body.messages!.map((m) => m.content ?? '')
      .join('\n');
    t.true(inProcess.block.length > 0);
    t.true(sent.includes(inProcess.block), 'the block the model received is the in-process block');

    const json = await cli(
      w.env,
      ['ask', '--json', '--stdin'],
      'when does the kiwi orchard irrigation run\n',
    );
    t.is(json.code, 0, json.stderr);
    t.is(json.stderr, '');
    const parsed = JSON.parse(json.stdout);
    t.is(parsed.status, 'ok');
    t.regex(parsed.excerpts[0].path, /kiwi\.md$/);
  } finally {
    await fake.close();
  }
});

test.serial('searches during repeated syncs always see a whole snapshot, old or new', async (t) => {
  const w = await setup();
  const pid = await warm(t, w);
  const known = /\/(kiwi|tar|bikes|walrus)\.md$/;
  for (let round = 0; round < 4; round++) {
    const present = round % 2 === 0;
    if (present)
      await writeTree(w.docs, { 'walrus.md': `# Walrus\n\n${prose('walrus tusk ivory', 10, 11 + round)}` });
    else await rm(join(w.docs, 'walrus.md'));
    let done = false;
    const sync = cli(w.env, ['source', 'update', 'Notes', '--yes']).then((r) => {
      done = true;
      return r;
    });
    let during = 0;
    while (!done || during === 0) {
      const r = await search(w, '--json', 'walrus tusk ivory');
      t.is(r.code, 0, r.stderr);
      t.is(answeredBy(r.stderr), pid, r.stderr);
      const res = JSON.parse(r.stdout) as { block: string; excerpts: { path: string; marker: string }[] };
      for (const e of res.excerpts) t.regex(e.path, known);
      // Every excerpt of the answer is in its block, in order: one consistent result.
      for (const e of res.excerpts) t.true(res.block.includes(`[${e.marker}]`));
      during++;
    }
    t.is((await sync).code, 0);
    const after = await search(w, '--json', 'walrus tusk ivory');
    const hasWalrus = (JSON.parse(after.stdout).excerpts as { path: string }[]).some((e) =>
      e.path.endsWith('walrus.md'),
    );
    t.is(hasWalrus, present, `round ${round}: the activated snapshot is the one searched`);
  }
});
