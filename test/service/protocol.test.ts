import test from 'ava';
import { createLineSplitter } from '../../src/service/line-splitter.js';
import {
  buildVerdict,
  checkSearchResult,
  encodeFrame,
  MAX_REQUEST_BYTES,
  parseFrame,
  parseRequest,
} from '../../src/service/protocol.js';
import { parseServiceConfig } from '../../src/service/service-config.js';

// The pure parts of the query service: request and frame validation, line framing, the build
// verdict and the config.json "service" section.

const ok = (line: string) => {
  const p = parseRequest(line);
  if (!p.ok) throw new Error(`${p.code}: ${p.reason}`);
  return p.value;
};
const refused = (line: string) => {
  const p = parseRequest(line);
  if (p.ok) throw new Error(`accepted: ${line}`);
  return p;
};

test('a valid search request round-trips through encodeFrame and parseRequest', (t) => {
  const req = {
    v: 1 as const,
    id: 'abc-1',
    op: 'search' as const,
    build: '123',
    args: {
      query: 'kiwi',
      stores: ['Notes', 'notes-1'],
      mode: 'lexical' as const,
      contextWindow: 8192,
      firstMarker: 3,
      candidates: 10,
      shape: false,
    },
  };
  const line = encodeFrame(req);
  t.true(line.endsWith('\n'));
  t.deepEqual(ok(line.trimEnd()), req);
  t.deepEqual(ok('{"v":1,"id":"s","op":"status"}'), { v: 1, id: 's', op: 'status' });
  t.deepEqual(ok('{"v":1,"id":"s","op":"stop"}'), { v: 1, id: 's', op: 'stop' });
});

test('malformed requests are refused with a reason, keeping the id when there is one', (t) => {
  t.is(refused('not json').code, 'BAD_REQUEST');
  t.is(refused('[1,2]').code, 'BAD_REQUEST');
  t.is(refused('null').code, 'BAD_REQUEST');
  const v2 = refused('{"v":2,"id":"x","op":"status"}');
  t.is(v2.code, 'UNSUPPORTED_VERSION');
  t.is(v2.id, 'x');
  t.regex(v2.reason, /this service speaks 1/);
  t.regex(refused('{"v":1,"op":"status"}').reason, /id must be/);
  t.regex(refused('{"v":1,"id":"has space","op":"status"}').reason, /id must be/);
  t.regex(refused(`{"v":1,"id":"${'a'.repeat(65)}","op":"status"}`).reason, /id must be/);
  const unknownOp = refused('{"v":1,"id":"x","op":"rm -rf"}');
  t.is(unknownOp.id, 'x');
  t.regex(unknownOp.reason, /unknown op "rm -rf"/);
  t.regex(refused('{"v":1,"id":"x","op":"status","extra":1}').reason, /unknown field extra/);
  t.regex(refused('{"v":1,"id":"x","op":"search"}').reason, /args must be an object/);
  t.regex(refused('{"v":1,"id":"x","op":"search","args":{"query":"  "}}').reason, /args\.query/);
  t.regex(
    refused('{"v":1,"id":"x","op":"search","args":{"query":"a","path":"/etc"}}').reason,
    /unknown field path/,
  );
  t.regex(
    refused('{"v":1,"id":"x","op":"search","args":{"query":"a","stores":"Notes"}}').reason,
    /args\.stores/,
  );
  t.regex(
    refused('{"v":1,"id":"x","op":"search","args":{"query":"a","stores":[""]}}').reason,
    /args\.stores/,
  );
  t.regex(refused('{"v":1,"id":"x","op":"search","args":{"query":"a","mode":"fuzzy"}}').reason, /args\.mode/);
  t.regex(
    refused('{"v":1,"id":"x","op":"search","args":{"query":"a","contextWindow":1.5}}').reason,
    /contextWindow/,
  );
  t.regex(
    refused('{"v":1,"id":"x","op":"search","args":{"query":"a","contextWindow":-4}}').reason,
    /contextWindow/,
  );
  t.regex(
    refused('{"v":1,"id":"x","op":"search","args":{"query":"a","candidates":5000}}').reason,
    /candidates/,
  );
  t.regex(
    refused('{"v":1,"id":"x","op":"search","args":{"query":"a","shape":"no"}}').reason,
    /args\.shape must be true or false/,
  );
  t.regex(
    refused('{"v":1,"id":"x","op":"search","args":{"query":"a","firstMarker":0}}').reason,
    /firstMarker/,
  );
  t.regex(refused('{"v":1,"id":"x","op":"status","build":5}').reason, /build/);
  t.regex(
    refused(`{"v":1,"id":"x","op":"search","args":{"query":"${'q'.repeat(512 * 1024 + 1)}"}}`).reason,
    /longer than/,
  );
});

test('response frames are validated; error messages are bounded', (t) => {
  const accepted = parseFrame('{"v":1,"id":"a","type":"accepted","server":{"pid":12,"build":"9"}}');
  t.deepEqual(accepted, {
    ok: true,
    value: { v: 1, id: 'a', type: 'accepted', server: { pid: 12, build: '9' } },
  });
  t.false(parseFrame('{"v":1,"id":"a","type":"accepted","server":{"pid":"12"}}').ok);
  t.false(parseFrame('{"v":1,"id":"a","type":"result"}').ok);
  t.false(parseFrame('{"v":1,"id":"a","type":"surprise"}').ok);
  t.false(parseFrame('{"v":0,"id":"a","type":"working"}').ok);
  t.false(parseFrame('garbage').ok);
  const err = parseFrame(
    `{"v":1,"id":null,"type":"error","error":{"code":"X","message":"${'m'.repeat(10_000)}","final":"yes"}}`,
  );
  t.true(err.ok);
  if (err.ok && err.value.type === 'error') {
    t.is(err.value.error.message.length, 4096);
    t.false(err.value.error.final, 'only a literal true is final');
  }
});

test('search results are checked field by field', (t) => {
  const excerpt = {
    key: 'k',
    storeId: 's',
    storeName: 'S',
    sourceId: 'src',
    path: '/p.md',
    text: 't',
    chunkId: 'c',
    contentSha256: 'h',
    tokens: 3,
    fusedScore: 0.1,
    lineStart: 1,
    marker: 'R1',
    rank: 1,
    trimmed: false,
    originalTokens: 3,
  };
  const good = {
    shapedQuery: 'q',
    block: 'b',
    excerpts: [excerpt],
    timings: { embedMs: 1, searchMs: 1, assembleMs: 1 },
    generation: 2,
  };
  t.is(checkSearchResult(good) as unknown, good);
  t.regex(checkSearchResult({ ...good, block: 1 }) as string, /block/);
  t.regex(checkSearchResult({ ...good, excerpts: [{ ...excerpt, marker: '[R1]' }] }) as string, /marker/);
  t.regex(checkSearchResult({ ...good, excerpts: [{ ...excerpt, lineStart: '1' }] }) as string, /lineStart/);
  t.regex(checkSearchResult({ ...good, excerpts: [{ ...excerpt, path: undefined }] }) as string, /path/);
  t.regex(checkSearchResult({ ...good, candidates: [{}] }) as string, /candidates\[0\]/);
  t.regex(checkSearchResult({ ...good, generation: -1 }) as string, /generation/);
  t.regex(checkSearchResult({ ...good, timings: {} }) as string, /timings/);
  // An older service's answer carries no shaped query: the client searches in-process instead.
  const { shapedQuery: _q, ...older } = good;
  t.regex(checkSearchResult(older) as string, /shapedQuery/);
  const explain = {
    matched: ['tar', 'open'],
    shares: { title: 0.5, headings: 0, body: 0.5, proximity: 0, passage: 0, name: 0 },
  };
  const explained = { ...good, excerpts: [{ ...excerpt, explain }] };
  t.is(checkSearchResult(explained) as unknown, explained);
  t.regex(
    checkSearchResult({
      ...good,
      excerpts: [{ ...excerpt, explain: { ...explain, matched: [1] } }],
    }) as string,
    /explain\.matched/,
  );
  t.regex(
    checkSearchResult({
      ...good,
      excerpts: [{ ...excerpt, explain: { ...explain, shares: { body: '1' } } }],
    }) as string,
    /explain\.shares/,
  );
  // An older service explains without the name match's or the passage's share (and ranks without
  // them): not used.
  const { name: _n, ...withoutName } = explain.shares;
  const { passage: _p, ...withoutPassage } = explain.shares;
  for (const shares of [withoutName, withoutPassage])
    t.regex(
      checkSearchResult({ ...good, excerpts: [{ ...excerpt, explain: { ...explain, shares } }] }) as string,
      /explain\.shares is not six numbers/,
    );
});

test('the line splitter frames any chunking, and drops an over-long line without buffering it', (t) => {
  const s = createLineSplitter(10);
  t.deepEqual(s.push(Buffer.from('ab')), []);
  t.deepEqual(s.push(Buffer.from('c\nde\r\n\nf')), [{ line: 'abc' }, { line: 'de' }, { line: '' }]);
  t.is(s.pending, 1);
  t.deepEqual(s.push(Buffer.from('0123456789xyz')), [{ overflow: true }]);
  t.is(s.pending, 0, 'nothing of the long line is held');
  t.deepEqual(s.push(Buffer.from('more of it')), []);
  t.deepEqual(s.push(Buffer.from('...\nok\n')), [{ line: 'ok' }], 'the next line reads normally');
  // A multi-byte character split across chunks survives.
  const u = createLineSplitter(MAX_REQUEST_BYTES);
  const bytes = Buffer.from('é€😀\n');
  const out = [...bytes].flatMap((b) => u.push(Buffer.from([b])));
  t.deepEqual(out, [{ line: 'é€😀' }]);
});

test('builds: the newer install wins', (t) => {
  t.is(buildVerdict(undefined, '100'), 'same');
  t.is(buildVerdict('100', '100'), 'same');
  t.is(buildVerdict('200', '100'), 'service-older');
  t.is(buildVerdict('100', '200'), 'client-older');
});

test('config.json "service": defaults, values, and damage named by file and field', (t) => {
  const path = '/h/rag/config.json';
  t.deepEqual(parseServiceConfig(undefined, path), {
    enabled: true,
    idleMinutes: 15,
    answerTimeoutMs: 1500,
    startTimeoutMs: 3000,
  });
  t.deepEqual(parseServiceConfig({ tui: { keymap: 'vim' } }, path).idleMinutes, 15);
  t.deepEqual(parseServiceConfig({ service: { idleMinutes: 2, enabled: false } }, path), {
    enabled: false,
    idleMinutes: 2,
    answerTimeoutMs: 1500,
    startTimeoutMs: 3000,
  });
  const bad = (raw: unknown) =>
    t.throws(() => parseServiceConfig(raw, path), { code: 'FILE_INVALID' } as never)?.message;
  t.is(
    bad({ service: { idleMinutes: 0 } }),
    '/h/rag/config.json: damaged configuration: service.idleMinutes: expected a number ≥ 0.001, found number 0',
  );
  t.regex(
    bad({ service: { enabled: 'yes' } })!,
    /service\.enabled: expected a boolean, found the string "yes"/,
  );
  t.regex(
    bad({ service: { idle: 3 } })!,
    /service\.idle: expected no such field, found unknown field "idle"/,
  );
  t.regex(bad({ service: [] })!, /service: expected an object, found an array of 0/);
  t.regex(bad([])!, /\(file\): expected an object, found an array of 0/);
});
