import test from 'ava';
import { createSseParser, type SseEvent } from '../../src/ai/backends/sse.js';

const enc = new TextEncoder();

function parseAll(pieces: (string | Uint8Array)[]): SseEvent[] {
  const p = createSseParser();
  const out: SseEvent[] = [];
  for (const piece of pieces) out.push(...p.push(typeof piece === 'string' ? enc.encode(piece) : piece));
  out.push(...p.end());
  return out;
}

const datas = (events: SseEvent[]) => events.map((e) => e.data);

const table: { name: string; stream: string; want: string[] }[] = [
  { name: 'LF events', stream: 'data: a\n\ndata: b\n\n', want: ['a', 'b'] },
  { name: 'CRLF events', stream: 'data: a\r\n\r\ndata: b\r\n\r\n', want: ['a', 'b'] },
  { name: 'CR-only events', stream: 'data: a\r\rdata: b\r\r', want: ['a', 'b'] },
  {
    name: 'multi-line data joined with LF',
    stream: 'data: line1\ndata: line2\ndata:\n\n',
    want: ['line1\nline2\n'],
  },
  { name: 'comments and keep-alives ignored', stream: ': ping\n\n:x\ndata: a\n: mid\n\n', want: ['a'] },
  { name: 'no space after colon', stream: 'data:a\n\n', want: ['a'] },
  { name: 'only one leading space removed', stream: 'data:  two\n\n', want: [' two'] },
  { name: 'unknown fields and retry ignored', stream: 'retry: 10\nfoo: bar\ndata: a\n\n', want: ['a'] },
  { name: 'event without data is not dispatched', stream: 'event: ping\n\ndata: a\n\n', want: ['a'] },
  {
    name: '[DONE] is an ordinary payload',
    stream: 'data: {"x":1}\n\ndata: [DONE]\n\n',
    want: ['{"x":1}', '[DONE]'],
  },
  { name: 'last event without blank line (lenient)', stream: 'data: a\n\ndata: b\n', want: ['a', 'b'] },
  { name: 'last line without newline at all', stream: 'data: a\n\ndata: b', want: ['a', 'b'] },
  { name: 'UTF-8 and colons in data', stream: 'data: {"t":"é ✓ 🦀: x"}\n\n', want: ['{"t":"é ✓ 🦀: x"}'] },
  { name: 'leading BOM stripped', stream: '\uFEFFdata: a\n\n', want: ['a'] },
];

for (const row of table) {
  test(`sse: ${row.name}, whole`, (t) => {
    t.deepEqual(datas(parseAll([row.stream])), row.want);
  });

  test(`sse: ${row.name}, split at every byte boundary`, (t) => {
    const bytes = enc.encode(row.stream);
    for (let cut = 1; cut < bytes.length; cut++) {
      const got = datas(parseAll([bytes.subarray(0, cut), bytes.subarray(cut)]));
      t.deepEqual(got, row.want, `cut at byte ${cut}`);
    }
  });

  test(`sse: ${row.name}, one byte at a time`, (t) => {
    const bytes = enc.encode(row.stream);
    t.deepEqual(datas(parseAll(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)))), row.want);
  });
}

test('sse: a multi-byte character split across pushes is decoded once, intact', (t) => {
  const bytes = enc.encode('data: 🦀\n\n');
  const crab = bytes.indexOf(0xf0);
  const events = parseAll([bytes.subarray(0, crab + 2), bytes.subarray(crab + 2)]);
  t.deepEqual(datas(events), ['🦀']);
});

test('sse: CR at the end of one push and LF at the start of the next is one line end', (t) => {
  const events = parseAll(['data: a\r', '\n\r', '\ndata: b\r\n\r\n']);
  t.deepEqual(datas(events), ['a', 'b']);
});

test('sse: events come out as soon as their blank line arrives', (t) => {
  const p = createSseParser();
  t.deepEqual(p.push('data: a\n'), []);
  t.deepEqual(datas(p.push('\ndata: b')), ['a']);
  t.deepEqual(datas(p.push('\n\n')), ['b']);
  t.deepEqual(p.end(), []);
});

test('sse: event type and id are carried', (t) => {
  const [ev] = parseAll(['event: delta\nid: 7\ndata: x\n\n']);
  t.deepEqual(ev, { event: 'delta', data: 'x', id: '7' });
  const [plain] = parseAll(['data: y\n\n']);
  t.is(plain!.event, 'message');
});

test('sse: a line that never ends is refused past the limit', (t) => {
  const p = createSseParser({ maxEventLength: 1024 });
  p.push(`data: ${'x'.repeat(1000)}`);
  t.throws(() => p.push('y'.repeat(100)), { message: /longer than 1024 characters \(the per-event cap/ });
});

test('sse: an event whose blank line never comes is refused once its data lines pass the cap', (t) => {
  const p = createSseParser({ maxEventLength: 1024 });
  // Each line is short and complete; only the event never ends.
  for (let i = 0; i < 40; i++) p.push('data: 0123456789012345678\n');
  t.throws(
    () => {
      for (let i = 0; i < 20; i++) p.push('data: 0123456789012345678\n');
    },
    { message: /longer than 1024 characters/ },
  );
  // Ordinary events below the cap reset the count each time.
  const q = createSseParser({ maxEventLength: 1024 });
  for (let i = 0; i < 200; i++) t.is(q.push(`data: ${'z'.repeat(500)}\n\n`).length, 1);
});

test('sse: one piece far larger than the cap is refused without being joined whole', (t) => {
  const p = createSseParser({ maxEventLength: 1024 });
  t.throws(() => p.push(`data: ${'x'.repeat(10_000_000)}`), { message: /longer than 1024/ });
});
