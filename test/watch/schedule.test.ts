import test from 'ava';
import {
  createScheduleState,
  DEFAULT_SCHEDULE,
  dropSource,
  isFlooding,
  jobFinished,
  jobStarted,
  nextJob,
  nextWakeAt,
  noteChange,
  noteRescan,
  type ScheduleConfig,
} from '../../src/watch/schedule.js';

// The debounce/coalescing decisions, as plain data over a fake clock.

const cfg: ScheduleConfig = {
  ...DEFAULT_SCHEDULE,
  quietMs: 100,
  maxDelayMs: 1000,
  busyRetryMs: 500,
  failRetryMs: 200,
  maxFailRetryMs: 1000,
  overflowEvents: 5,
  overflowWindowMs: 1000,
};

test('a burst is coalesced into one job once it has been quiet for quietMs', (t) => {
  const s = createScheduleState();
  const c = { ...cfg, maxDelayMs: 5000, overflowEvents: 1e9 };
  for (let i = 0; i < 1000; i++) noteChange(s, 'st', i % 2 ? 'a' : 'b', i, c);
  t.is(nextJob(s, 1050, c), null, 'still writing');
  t.is(nextWakeAt(s, c), 1099);
  t.deepEqual(nextJob(s, 1099, c), { storeId: 'st', sourceIds: ['a', 'b'] });
});

test('a source that never goes quiet is synced after maxDelayMs', (t) => {
  const s = createScheduleState();
  let now = 0;
  for (; now < 1000; now += 50) {
    noteChange(s, 'st', 'a', now, cfg);
    t.is(nextJob(s, now, cfg), null, `at ${now}`);
  }
  noteChange(s, 'st', 'a', now, cfg);
  t.deepEqual(nextJob(s, now, cfg), { storeId: 'st', sourceIds: ['a'] });
});

test('one job at a time; changes during a job wait for the next one (none is lost)', (t) => {
  const s = createScheduleState();
  noteChange(s, 'st', 'a', 0, cfg);
  noteChange(s, 'other', 'x', 10, cfg);
  const job = nextJob(s, 200, cfg)!;
  t.deepEqual(job, { storeId: 'st', sourceIds: ['a'] }); // waited longest
  jobStarted(s, job);
  t.is(nextJob(s, 300, cfg), null, 'a job is running');
  t.is(nextWakeAt(s, cfg), null);
  noteChange(s, 'st', 'b', 250, cfg); // arrives mid-job
  jobFinished(s, 'ok', 400, cfg);
  t.deepEqual(nextJob(s, 400, cfg), { storeId: 'other', sourceIds: ['x'] });
  jobStarted(s, nextJob(s, 400, cfg)!);
  jobFinished(s, 'ok', 450, cfg);
  t.deepEqual(nextJob(s, 450, cfg), { storeId: 'st', sourceIds: ['b'] });
});

test('busy stores are retried after busyRetryMs with their sources; failures back off', (t) => {
  const s = createScheduleState();
  noteChange(s, 'st', 'a', 0, cfg);
  jobStarted(s, nextJob(s, 100, cfg)!);
  noteChange(s, 'st', 'b', 150, cfg);
  jobFinished(s, 'busy', 200, cfg);
  t.is(nextJob(s, 699, cfg), null);
  t.is(nextWakeAt(s, cfg), 700);
  t.deepEqual(nextJob(s, 700, cfg), { storeId: 'st', sourceIds: ['a', 'b'] });

  const waits: number[] = [];
  let now = 700;
  for (let i = 0; i < 5; i++) {
    jobStarted(s, nextJob(s, now, cfg)!);
    jobFinished(s, 'failed', now, cfg);
    const at = nextWakeAt(s, cfg)!;
    waits.push(at - now);
    now = at;
  }
  t.deepEqual(waits, [200, 400, 800, 1000, 1000]);
  jobStarted(s, nextJob(s, now, cfg)!);
  jobFinished(s, 'ok', now, cfg);
  noteChange(s, 'st', 'a', now, cfg);
  jobStarted(s, nextJob(s, now + 100, cfg)!);
  jobFinished(s, 'failed', now + 100, cfg);
  t.is(nextWakeAt(s, cfg), now + 300, 'success resets the back-off');
});

test('rescans are due at once; dropped sources are forgotten', (t) => {
  const s = createScheduleState();
  noteRescan(s, 'st', ['a', 'b'], 0);
  t.deepEqual(nextJob(s, 0, cfg), { storeId: 'st', sourceIds: ['a', 'b'] });
  dropSource(s, 'st', 'a');
  t.deepEqual(nextJob(s, 0, cfg), { storeId: 'st', sourceIds: ['b'] });
  dropSource(s, 'st', 'b');
  t.is(nextJob(s, 0, cfg), null);
  t.is(s.pending.size, 0);
  noteRescan(s, 'st', [], 0);
  t.is(s.pending.size, 0);
});

test('event overflow is reported once per window; flooding ends with the window', (t) => {
  const s = createScheduleState();
  const reports: number[] = [];
  for (let i = 0; i < 20; i++) if (noteChange(s, 'st', 'a', i, cfg)) reports.push(i);
  t.deepEqual(reports, [5]); // the 6th event within 1 s
  t.true(isFlooding(s, 'st', 'a', 500, cfg));
  t.false(isFlooding(s, 'st', 'b', 500, cfg));
  t.false(isFlooding(s, 'st', 'a', 1000, cfg));
  for (let i = 0; i < 7; i++) if (noteChange(s, 'st', 'a', 1000 + i, cfg)) reports.push(1000 + i);
  t.deepEqual(reports, [5, 1005]);
});
