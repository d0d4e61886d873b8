import test from 'ava';
import { analyse } from '../reliability/lock-suite.js';

// The lock suite's log analysis on hand-made logs: a kill line written just before the signal may
// precede the holder's own last line, which means the kill missed; it must neither count as a
// holder kill nor hide two holders.

const rec = (what: string, pid: number, t: number) => ({ what, pid, nonce: '-', t });

test('a kill that lands after the holder let go is not a holder kill and raises nothing', (t) => {
  const a = analyse([rec('enter', 1, 0), rec('kill', 1, 10), rec('exit', 1, 11), rec('enter', 2, 12)], 1000);
  t.deepEqual(a.violations, []);
  t.is(a.holderKills, 0);
  t.deepEqual(a.takeovers, []);
  t.is(a.noTakeover, 0);
});

test('a kill of a live holder counts, and the next enter is its takeover', (t) => {
  const a = analyse([rec('enter', 1, 0), rec('kill', 1, 10), rec('enter', 2, 250)], 1000);
  t.deepEqual(a.violations, []);
  t.is(a.holderKills, 1);
  t.deepEqual(a.takeovers, [240]);
});

test('a "killed" holder that still activates after another entered is two holders', (t) => {
  const a = analyse([rec('enter', 1, 0), rec('kill', 1, 10), rec('enter', 2, 11), rec('exit', 1, 12)], 1000);
  t.deepEqual(a.violations, ['pid 1 activated although pid 2 had taken the lock (two holders)']);
});
