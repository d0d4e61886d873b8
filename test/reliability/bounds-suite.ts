import { execFile } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseProfilesConfig } from '../../src/ai/profiles.js';
import { saveProfiles } from '../../src/ai/profiles-file.js';
import { createRunRecord, RUN_LOG_MAX_BYTES, type RunRecord, serializeRun } from '../../src/ai/runs.js';
import { readRuns } from '../../src/ai/runs-file.js';
import { SELECTION_MAX_BYTES } from '../../src/ai/selection-bounds.js';
import { countTokens } from '../../src/chunk/tokenizer.js';
import { readModelInfo } from '../../src/embed/model-info.js';
import { addLocalModel } from '../../src/embed/model-registry.js';
import { isKorttyError } from '../../src/errors.js';
import { profilesPath, runsDir } from '../../src/storage/paths.js';
import { createFakeOpenAI, HOSTILE_MODES, requestText } from '../helpers/fake-openai.js';
import { hostileGguf } from '../helpers/hostile-gguf.js';
import { runCli } from '../helpers/run-cli.js';
import { check, createRow, type SuiteRow } from './common.js';

// Every input from outside is bounded: hostile chat servers (an endless answer, an event without
// its blank line, a 100 MB event), endless and huge selections, a 600 MiB run log, run logs
// rotated under concurrent writers, and a GGUF whose header claims 2^62 vocabulary entries.
// Each trial runs the real CLI in its own process and measures its peak RSS.

const MiB = 1024 * 1024;
const run = promisify(execFile);

export interface BoundsSuiteOptions {
  trials: number;
  log?: (line: string) => void;
}

async function home(url?: string): Promise<string> {
  const h = await mkdtemp(join(tmpdir(), 'kortty-rel-bounds-'));
  if (url) {
    const cfg = parseProfilesConfig(
      {
        profiles: [{ name: 'r', backend: 'openai', baseUrl: url, model: 'm', contextWindow: 8192 }],
        roles: { text: 'r', coding: 'r' },
      },
      profilesPath(h),
    );
    await saveProfiles(cfg, profilesPath(h));
  }
  return h;
}

function record(time: string, query: string, answer?: string): RunRecord {
  return createRunRecord({
    id: query,
    time: new Date(time),
    action: 'ask',
    profile: 'p',
    stores: [],
    query,
    excerpts: [],
    cited: [],
    status: answer === undefined ? 'ok' : 'rejected',
    ...(answer === undefined ? {} : { reason: { code: 'CITATION_MISSING', message: 'm' }, answer }),
  });
}

function fill(path: string, bytes: number): void {
  const line = serializeRun(record('2026-01-10T01:00:00Z', 'filler', 'x'.repeat(900)));
  const block = Buffer.from(line.repeat(Math.floor(MiB / line.length)));
  const fd = openSync(path, 'a', 0o600);
  try {
    for (let w = 0; w + block.length <= bytes; ) w += writeSync(fd, block);
  } finally {
    closeSync(fd);
  }
}

export async function runBoundsSuite(opts: BoundsSuiteOptions): Promise<SuiteRow[]> {
  const rows: SuiteRow[] = [];
  const homes: string[] = [];
  const newHome = async (url?: string) => {
    const h = await home(url);
    homes.push(h);
    return h;
  };
  try {
    // Hostile chat servers.
    const answers = createRow(
      'ask vs a hostile server (endless, no blank line, 100 MB event): cap error, RSS < 300 MiB',
    );
    for (const mode of HOSTILE_MODES) {
      const fake = await createFakeOpenAI({ reply: () => ({ hostile: mode }) });
      try {
        const h = await newHome(fake.url);
        for (let i = 0; i < opts.trials; i++) {
          await answers.trial(async () => {
            const r = await runCli(['ask', '--no-service', 'hello'], { env: { KORTTY_HOME: h } });
            check(r.code === 1, `${mode}: exit ${r.code}: ${r.stderr.slice(-300)}`);
            check(
              /cap[\s\S]*stopped reading/.test(r.stderr),
              `${mode}: no cap error: ${r.stderr.slice(-300)}`,
            );
            check(r.peakRssMiB < 300, `${mode}: peak RSS ${r.peakRssMiB.toFixed(0)} MiB`);
          }, mode);
        }
        check(
          fake.requests.every((q) => q.body.max_tokens === 2048),
          'max_tokens not sent',
        );
      } finally {
        await fake.close();
      }
    }
    rows.push(answers);

    // Selections.
    const selections = createRow(
      'ask --file /dev/zero and a 10 MB stdin selection: cut said, request fits 8192 tokens',
    );
    const fake = await createFakeOpenAI({ reply: () => 'fine' });
    try {
      const h = await newHome(fake.url);
      const big = 'volcanoes erupt basalt and ash over the caldera\n'.repeat(220_000);
      for (let i = 0; i < opts.trials; i++) {
        for (const [label, args, stdin] of [
          ['/dev/zero', ['--file', '/dev/zero', 'what is this'], undefined],
          ['10 MB stdin', ['--stdin'], big],
        ] as const) {
          await selections.trial(async () => {
            const r = await runCli(['ask', '--no-service', ...args], {
              env: { KORTTY_HOME: h },
              ...(stdin ? { stdin } : {}),
            });
            check(r.code === 0, `exit ${r.code}: ${r.stderr.slice(-300)}`);
            check(
              r.stderr.includes(`the selection was cut: read only its first ${SELECTION_MAX_BYTES} bytes`),
              `no cut said: ${r.stderr.slice(-300)}`,
            );
            const body = fake.requests.at(-1)!.body;
            const sent = countTokens(requestText(body)) + (body.max_tokens as number);
            check(sent <= 8192, `request of ${sent} tokens with its answer`);
          }, label);
        }
      }
    } finally {
      await fake.close();
    }
    rows.push(selections);

    // A 600 MiB run log, listed.
    const bigLog = createRow('runs --last 10 over a 600 MiB log: the newest records, RSS < 200 MiB');
    const logHome = await newHome();
    const dir = runsDir(logHome);
    await import('node:fs/promises').then((f) => f.mkdir(dir, { recursive: true }));
    const path = join(dir, '2026-01-10.jsonl');
    fill(path, 64 * MiB);
    const fd = openSync(path, 'r+');
    ftruncateSync(fd, 600 * MiB);
    let tail = '\n';
    for (let i = 0; i < 10; i++) tail += serializeRun(record(`2026-01-10T02:00:0${i}Z`, `wanted-${i}`));
    writeSync(fd, tail, 600 * MiB);
    closeSync(fd);
    for (let i = 0; i < opts.trials; i++) {
      await bigLog.trial(async () => {
        const r = await runCli(['runs', '--last', '10', '--json'], { env: { KORTTY_HOME: logHome } });
        check(r.code === 0, `exit ${r.code}: ${r.stderr.slice(-300)}`);
        const got = (JSON.parse(r.stdout) as { runs: RunRecord[] }).runs.map((x) => x.query);
        check(got.join() === Array.from({ length: 10 }, (_, k) => `wanted-${k}`).join(), `got ${got.join()}`);
        check(r.peakRssMiB < 200, `peak RSS ${r.peakRssMiB.toFixed(0)} MiB`);
      });
    }
    await rm(path, { force: true });
    rows.push(bigLog);

    // Rotation under concurrent writers.
    const rotation = createRow(
      'run log rotation, 4 writers (ask and MCP append paths) crossing 16 MiB: no line lost',
    );
    const mod = new URL('../../src/ai/runs-file.js', import.meta.url).href;
    const runsMod = new URL('../../src/ai/runs.js', import.meta.url).href;
    for (let i = 0; i < opts.trials; i++) {
      await rotation.trial(async () => {
        const d = runsDir(await newHome());
        await import('node:fs/promises').then((f) => f.mkdir(d, { recursive: true }));
        fill(join(d, '2025-05-05.jsonl'), RUN_LOG_MAX_BYTES - 512 * 1024);
        const script = `
          import { appendRun, appendRunUnsynced } from ${JSON.stringify(mod)};
          import { createRunRecord } from ${JSON.stringify(runsMod)};
          const [w, how] = process.argv.slice(1);
          for (let i = 0; i < 40; i++) {
            const r = createRunRecord({ id: w + '-' + i, time: new Date('2025-05-05T12:00:00Z'), action: 'ask',
              profile: 'p', stores: [], query: 'q', excerpts: [], cited: [], status: 'rejected',
              reason: { code: 'CITATION_MISSING', message: 'm' }, answer: w.repeat(20000 + i) });
            if (how === 'sync') appendRunUnsynced(r, ${JSON.stringify(d)}); else await appendRun(r, ${JSON.stringify(d)});
          }`;
        await Promise.all(
          ['A:async', 'B:async', 'C:sync', 'D:sync'].map((wh) =>
            run(process.execPath, ['--input-type=module', '-e', script, ...wh.split(':')]),
          ),
        );
        const names = (await readdir(d)).sort();
        check(names.join() === '2025-05-05.1.jsonl,2025-05-05.jsonl', `files ${names.join()}`);
        const { records, damaged } = await readRuns({ dir: d, last: 160 });
        check(damaged.length === 0, `damaged ${JSON.stringify(damaged)}`);
        check(new Set(records.map((r) => r.id)).size === 160, `${records.length} records`);
      });
    }
    rows.push(rotation);

    // A hostile GGUF.
    const gguf = createRow(
      '177-byte GGUF claiming 2^62 vocabulary entries: refused at add and load in < 1 s',
    );
    const gdir = await newHome();
    const gpath = join(gdir, 'hostile.gguf');
    await writeFile(gpath, hostileGguf(2n ** 62n));
    for (let i = 0; i < opts.trials * 10; i++) {
      await gguf.trial(async () => {
        const t0 = performance.now();
        for (const attempt of [() => addLocalModel(gpath, { home: gdir }), () => readModelInfo(gpath)]) {
          const err = await attempt().then(
            () => undefined,
            (e: unknown) => e,
          );
          check(isKorttyError(err, 'GGUF_INVALID'), `not refused: ${String(err)}`);
          check(/tokenizer\.ggml\.tokens: array length/.test((err as Error).message), (err as Error).message);
        }
        const ms = performance.now() - t0;
        check(ms < 1000, `took ${ms.toFixed(0)} ms`);
      });
    }
    rows.push(gguf);
  } finally {
    for (const h of homes) await rm(h, { recursive: true, force: true });
  }
  return rows;
}
