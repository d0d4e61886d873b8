import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { z } from 'zod';
import { startQueryService } from '../../src/app/query-service.js';
import { allOptions, type Command, isGroup } from '../../src/cli/command.js';
import { loadDefinitions, main } from '../../src/cli/main.js';
import { isKorttyError } from '../../src/errors.js';
import { configShape } from '../../src/storage/config-json.js';
import { configPath, ragDir } from '../../src/storage/paths.js';
import { checkJson } from '../../src/util/json-check.js';
import { describeRange, MAX_TIMER_MS } from '../../src/util/ranges.js';
import { startWatchService } from '../../src/watch/watch-service.js';
import { freshHome } from '../helpers/store-env.js';
import { captureIO } from './capture.js';

// Every number a user can give (command options, config.json fields) has a declared range, and a
// value past it is refused naming the option and the range, never clamped (Node fires a timer
// whose delay is past 2^31-1 ms after 1 ms). Driven by the definitions and the schema, so a new
// number option or field without a range fails here.

const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));
const exec = promisify(execFile);

/** Value names and help words that mean "a number": such an option must declare its range. */
const NUMERIC_VALUE = /^(N|NUM|COUNT|MIB|KIB|GIB|BYTES|MS|SECONDS|MINUTES|TOKENS|SIZE)$/;
const NUMERIC_HELP = /\b(seconds|minutes|milliseconds|how many|interval|timeout|in tokens|in MiB)\b/i;
const UNIT_MS: Record<string, number> = { ms: 1, seconds: 1000, minutes: 60_000 };

async function allCommands(): Promise<Command[]> {
  return (await loadDefinitions()).flatMap((d) => (isGroup(d) ? [...d.commands] : [d]));
}

const requiredArgs = (c: Command) =>
  (c.positionals ?? []).filter((p) => !p.optional).map((p) => p.choices?.[0] ?? `x-${p.name}`);

async function run(argv: string[]) {
  const c = captureIO();
  const code = await main(argv, c.io);
  return { code, out: c.stdout(), err: c.stderr() };
}

test.before(async () => {
  await freshHome();
});

test('every number option declares a range; a value past either end is a usage error naming it', async (t) => {
  let ranged = 0;
  for (const c of await allCommands()) {
    for (const [name, o] of Object.entries(allOptions(c))) {
      if (!o.range) {
        t.false(
          o.type === 'string' && (NUMERIC_VALUE.test(o.value ?? '') || NUMERIC_HELP.test(o.help)),
          `${c.name} --${name} takes a number but declares no range`,
        );
        continue;
      }
      ranged++;
      const r = o.range;
      const factor = r.unit ? UNIT_MS[r.unit] : undefined;
      if (factor !== undefined)
        t.true(
          r.max * factor <= MAX_TIMER_MS,
          `${c.name} --${name}: ${r.max} ${r.unit} exceeds the timer limit`,
        );
      const step = r.integer ? 1 : Math.max(r.min, 0.001);
      for (const bad of [r.max + step, r.max * 10 + 1, r.min - step, 'x']) {
        const res = await run([...c.name.split(' '), ...requiredArgs(c), `--${name}=${bad}`]);
        t.is(res.code, 2, `${c.name} --${name} ${bad}: ${res.err}`);
        t.is(res.out, '');
        const first = res.err.split('\n')[0]!;
        t.true(first.startsWith(`kortty-rag ${c.name}: --${name} `), first);
        t.true(first.includes(describeRange(r)), first);
      }
      if (r.integer) {
        const res = await run([...c.name.split(' '), ...requiredArgs(c), `--${name}=${r.min + 0.5}`]);
        t.is(res.code, 2, `${c.name} --${name} ${r.min + 0.5} is not whole: ${res.err}`);
      }
    }
  }
  t.true(ranged >= 12, `only ${ranged} ranged options found`);
});

type Shape = Record<string, z.ZodType>;
const unwrap = (s: z.ZodType): z.ZodType =>
  s instanceof z.ZodOptional ? unwrap(s.unwrap() as z.ZodType) : s;

/** Every number field of config.json, as [field path, schema]. */
function numberFields(shape: Shape, prefix = ''): [string, z.ZodNumber][] {
  return Object.entries(shape).flatMap(([k, s]): [string, z.ZodNumber][] => {
    const inner = unwrap(s);
    if (inner instanceof z.ZodNumber) return [[`${prefix}${k}`, inner]];
    if (inner instanceof z.ZodObject) return numberFields(inner.shape as Shape, `${prefix}${k}.`);
    return [];
  });
}

const withValue = (field: string, value: number) =>
  field
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value);

test('every number field of config.json has a range within the timer limit, and a value past it names the field', (t) => {
  const fields = numberFields(configShape as unknown as Shape);
  t.true(fields.length >= 3, fields.map(([f]) => f).join(', '));
  const whole = z.looseObject(configShape);
  for (const [field, s] of fields) {
    const max = s.maxValue;
    const min = s.minValue;
    t.true(Number.isFinite(max) && Number.isFinite(min), `${field} declares no range`);
    if (!Number.isFinite(max) || !Number.isFinite(min)) continue;
    const unit = /Ms$/.test(field) ? 1 : /Seconds$/.test(field) ? 1000 : /Minutes$/.test(field) ? 60_000 : 0;
    if (unit) t.true(max! * unit <= MAX_TIMER_MS, `${field}: ${max} exceeds the timer limit`);
    for (const bad of [max! * 2 + 1, min! - 1]) {
      const err = t.throws(() => checkJson(withValue(field, bad), whole, '/x/config.json', 'configuration'));
      t.true(isKorttyError(err, 'FILE_INVALID'), String(err));
      t.regex(
        err!.message,
        new RegExp(`^/x/config\\.json: .*${field.replace('.', '\\.')}: expected a number [≤≥] `),
      );
      t.false(err!.message.includes('\n'));
    }
  }
});

test('the CLI refuses a duration past the timer limit with exit 2 (service idle, watcher rescan, config.json)', async (t) => {
  const home = await freshHome();
  const env = { ...process.env, KORTTY_HOME: home };
  const cli = (args: string[]) =>
    exec(process.execPath, [BIN, ...args], { env, timeout: 30_000 }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
  const idle = await cli(['service', 'run', '--idle-minutes', '100000']);
  t.is(idle.code, 2, idle.stderr);
  t.regex(
    idle.stderr.split('\n')[0]!,
    /^kortty-rag service run: --idle-minutes "100000": must be a number from/,
  );
  const rescan = await cli(['watch', '--reconcile-seconds', '2147484']);
  t.is(rescan.code, 2, rescan.stderr);
  t.regex(
    rescan.stderr.split('\n')[0]!,
    /^kortty-rag watch: --reconcile-seconds "2147484": must be a whole number from 1 to 2147483 \(seconds\)$/,
  );
  await mkdir(ragDir(home), { recursive: true });
  await writeFile(configPath(home), JSON.stringify({ service: { idleMinutes: 100000 } }));
  const cfg = await cli(['service', 'run']);
  t.is(cfg.code, 2, cfg.stderr);
  t.regex(
    cfg.stderr.split('\n')[0]!,
    /service\.idleMinutes: expected a number ≤ 10080, found number 100000$/,
  );
});

test('the watcher and the query service refuse out-of-range settings given in code too', async (t) => {
  const home = await freshHome();
  for (const opts of [
    { reconcileMs: MAX_TIMER_MS + 1 },
    { pollMs: 2 ** 40 },
    { schedule: { quietMs: -1 } },
  ]) {
    const err = await t.throwsAsync(startWatchService({ home, ...opts }));
    t.true(isKorttyError(err, 'INVALID_ARGUMENT'), String(err));
  }
  const err = await t.throwsAsync(
    startQueryService({
      home,
      host: 'standalone',
      idleMinutes: 100000,
    }),
  );
  t.true(isKorttyError(err, 'INVALID_ARGUMENT'), String(err));
  t.regex(err!.message, /idleMinutes/);
});
