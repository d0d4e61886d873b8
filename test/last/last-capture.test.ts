import test from 'ava';
import {
  boundOutput,
  checkRows,
  DEFAULT_PROMPT_PATTERN,
  fallbackFromLines,
  locateOutput,
  planCapture,
} from '../../src/app/last-capture.js';
import { decodeField, parseLastState, type RecordedCommand } from '../../src/app/last-state.js';
import { isKorttyError } from '../../src/errors.js';

// The pure core of `kortty-rag last`: the state file's lines, where the output lies now, and how
// it is cut. The real shells and tmux are in shell-last.test.ts; here the geometry is spelled out.

const pos = (
  historySize: number,
  cursorY: number,
  cursorX = 0,
  width = 80,
  height = 24,
  historyLimit = 2000,
) => ({
  historySize,
  cursorY,
  cursorX,
  width,
  height,
  historyLimit,
});

const rec = (over: Partial<RecordedCommand> = {}): RecordedCommand => ({
  command: 'ls /nonexistent',
  exitCode: 2,
  start: pos(0, 4),
  end: pos(0, 6),
  anchor: '$ ls /nonexistent',
  endAnchor: 'line two',
  ...over,
});

const STATE = `kortty-rag-last 1
pane %3
last-command echo "a%25b%0Ac"
last-start 0 4 0 80 24 2000
last-anchor $ echo "a%25b
last-end 0 6 0 80 24 2000
last-end-anchor c
last-exit 0
run-command sleep 100
run-start 0 7 0 80 24 2000
run-anchor $ sleep 100
`;

test('the state file: fields decoded, a running command seen', (t) => {
  const s = parseLastState(STATE, '/k/rag/last/1-3.state');
  t.is(s.pane, '%3');
  t.is(s.last?.command, 'echo "a%b\nc"');
  t.deepEqual(s.last?.start, pos(0, 4));
  t.is(s.last?.exitCode, 0);
  t.is(s.last?.anchor, '$ echo "a%b');
  t.deepEqual(s.running, { command: 'sleep 100' });
  t.is(decodeField('100%25 %0a %0D %41'), '100% \n \r %41');
});

test('a damaged state file names the path and the field', (t) => {
  const bad = (text: string) => {
    const err = t.throws(() => parseLastState(text, '/k/x.state'));
    t.true(isKorttyError(err, 'FILE_INVALID'));
    return err!.message;
  };
  t.regex(
    bad(STATE.replace('last-end 0 6', 'last-end 0 y')),
    /^\/k\/x\.state: damaged last-command state: \["last-end"\]\.cursorY: expected a number, found the string "y"/,
  );
  t.regex(bad(STATE.replace('last-exit 0', 'last-exit 300')), /\["last-exit"\]: expected a number ≤ 255/);
  t.regex(bad(STATE.replace('kortty-rag-last 1', 'kortty-rag-last 2')), /\["kortty-rag-last"\]: expected 1/);
  t.regex(bad(`${STATE}surprise 1\n`), /surprise: expected no such field/);
  t.regex(
    bad(STATE.replace('last-start 0 4 0 80 24 2000', 'last-start 0 4')),
    /\["last-start"\]: expected an object, found the string "0 4"/,
  );
  t.regex(bad(STATE.replace(/last-end .*\n/, '')), /\["last-end"\]: expected a value/);
  t.regex(bad(`${STATE}pane %4\n`), /line 12: expected one "pane" line, found a second one/);
  t.regex(bad('pane %1\n'), /\["kortty-rag-last"\]: expected 1, found nothing/);
});

test('positions: exact rows while nothing left the history, the anchor row first', (t) => {
  t.deepEqual(planCapture(rec(), pos(0, 8)), { kind: 'rows', first: 3, last: 5, anchored: true });
  // Later rows scrolled into the history: the same rows, further up.
  t.deepEqual(planCapture(rec(), pos(30, 23)), { kind: 'rows', first: -27, last: -25, anchored: true });
  // An unfinished last row (cursor_x > 0) is part of the output.
  t.deepEqual(planCapture(rec({ end: pos(0, 6, 4) }), pos(0, 7)), {
    kind: 'rows',
    first: 3,
    last: 6,
    anchored: true,
  });
  // Printed nothing.
  t.deepEqual(planCapture(rec({ end: pos(0, 4) }), pos(0, 5)), { kind: 'none' });
});

test('positions: resized, cleared, and a full history each say so or search', (t) => {
  const note = (p: ReturnType<typeof planCapture>) => (p.kind === 'none' ? p.note : undefined);
  t.regex(note(planCapture(rec(), pos(0, 8, 0, 60)))!, /resized since the command ran \(80 → 60 columns\)/);
  t.regex(
    note(planCapture(rec({ end: pos(0, 6, 0, 100) }), pos(0, 8, 0, 100)))!,
    /resized while the command ran/,
  );
  t.regex(
    note(planCapture(rec({ start: pos(10, 4), end: pos(12, 6) }), pos(0, 8)))!,
    /history was cleared since/,
  );
  t.regex(
    note(planCapture(rec({ start: pos(10, 20), end: pos(0, 0) }), pos(0, 1)))!,
    /cleared while the command ran/,
  );
  // tmux trims a full history by a tenth at once: from 1,800 rows on, rows may have moved.
  t.deepEqual(planCapture(rec({ start: pos(1700, 4), end: pos(1799, 6) }), pos(1799, 7)).kind, 'rows');
  t.deepEqual(planCapture(rec({ start: pos(1700, 4), end: pos(1800, 6) }), pos(1800, 7)), {
    kind: 'search',
    first: -1800,
    last: 7,
  });
});

test('checkRows: the anchor and the last row must match, the prompt after an unfinished row is cut', (t) => {
  const plan = { kind: 'rows', first: 3, last: 5, anchored: true } as const;
  t.deepEqual(checkRows(['$ ls /nonexistent', 'line one', 'line two'], plan, rec()), {
    lines: ['line one', 'line two'],
  });
  t.regex(
    (checkRows(['$ clear', 'line one', 'line two'], plan, rec()) as { note: string }).note,
    /no longer match/,
  );
  t.regex(
    (checkRows(['$ ls /nonexistent', 'line one', 'other'], plan, rec()) as { note: string }).note,
    /last line changed/,
  );
  const unfinished = rec({ end: pos(0, 6, 8), endAnchor: 'no newline' });
  t.deepEqual(checkRows(['$ ls /nonexistent', 'a', 'no newline$ kortty-rag last'], plan, unfinished), {
    lines: ['a', 'no newline'],
  });
});

test('locateOutput: rows that moved up are found by their text; a start gone means scrolled off', (t) => {
  const r = rec({ start: pos(1800, 10), end: pos(1800, 13), anchor: '$ make', endAnchor: 'error 2' });
  // 200 rows were dropped after the command: everything sits 200 rows higher.
  const rows = Array.from({ length: 1800 + 24 }, (_, i) => `row ${i}`);
  const top = -1800;
  const at = (rel: number, text: string) => {
    rows[rel - top] = text;
  };
  at(1809 - 1800 - 200, '$ make');
  at(1810 - 1800 - 200, 'compiling');
  at(1811 - 1800 - 200, 'error 1');
  at(1812 - 1800 - 200, 'error 2');
  t.deepEqual(locateOutput(rows, top, r, pos(1800, 20)), { first: -190, last: -188, scrolledOff: false });
  // The command line is no longer in the history: from the oldest row on, cut.
  const long = rec({ start: pos(1000, 10), end: pos(1800, 13), anchor: '$ make', endAnchor: 'error 2' });
  rows[1809 - 1800 - 200 - top] = 'compiling';
  t.deepEqual(locateOutput(rows, top, long, pos(1800, 20)), { first: -1800, last: -188, scrolledOff: true });
  // The last row is nowhere: nothing is shown.
  rows[1812 - 1800 - 200 - top] = 'changed';
  t.regex((locateOutput(rows, top, long, pos(1800, 20)) as { note: string }).note, /left tmux's history/);
});

test('boundOutput: the last lines, then the byte cap on whole lines, the cut said', (t) => {
  const lines = Array.from({ length: 1000 }, (_, i) => String(i + 1));
  t.deepEqual(boundOutput(['a', 'b  ', '', ''], 10, 1000), { output: 'a\nb', truncated: false });
  const b = boundOutput(lines, 200, 100_000);
  t.is(b.output.split('\n')[0], '801');
  t.is(b.note, 'output cut to its last 200 of 1,000 lines');
  const c = boundOutput(lines, 1000, 20);
  t.is(c.output, '995\n996\n997\n998\n999\n1000'.slice(-c.output.length));
  t.true(Buffer.byteLength(c.output) <= 20);
  t.false(c.output.startsWith('\n'));
  t.regex(c.note!, /output cut to its last \d+ of 3,892 bytes/);
  // One long line of multi-byte characters is cut at a character boundary.
  const wide = boundOutput(['é'.repeat(100)], 10, 15);
  t.is(wide.output, 'é'.repeat(7));
  t.true(wide.truncated);
});

test('fallback: the previous prompt line holds the command, the lines up to the current prompt its output', (t) => {
  const prompt = new RegExp(DEFAULT_PROMPT_PATTERN, 'u');
  const screen = [
    'user@host:~$ echo old',
    'old',
    'user@host:~$ ls /nonexistent',
    "ls: cannot access '/nonexistent': No such file or directory",
    'user@host:~$ kortty-rag last',
  ];
  t.deepEqual(fallbackFromLines(screen, prompt), {
    command: 'ls /nonexistent',
    lines: ["ls: cannot access '/nonexistent': No such file or directory"],
  });
  t.deepEqual(fallbackFromLines(['host% make', 'ok', '❯ '], prompt), { command: 'make', lines: ['ok'] });
  t.is(fallbackFromLines(['no prompt here', '$ '], prompt), undefined);
});
