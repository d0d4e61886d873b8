import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { isKorttyError } from '../../src/errors.js';
import { checkEndpoint, clientTarget, isLoopbackHost, redactUrl } from '../../src/qdrant/endpoint-policy.js';

// Nothing here touches disk; KORTTY_HOME still points at a temp dir, as for every test.
process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-qdrant-pure-'));

// [input, expected]: a string is the accepted normalised href; { refused: rule } a refusal.
type Row = [string, string | { refused: string }];
const R = (rule: string) => ({ refused: rule });

const rows: Row[] = [
  // accepted: https anywhere, http on canonical loopback only
  ['https://qdrant.example.com', 'https://qdrant.example.com/'],
  ['https://xyz-1.eu-central.aws.cloud.qdrant.io:6333', 'https://xyz-1.eu-central.aws.cloud.qdrant.io:6333/'],
  ['https://10.0.0.5:6333/qdrant', 'https://10.0.0.5:6333/qdrant'],
  ['HTTPS://Qdrant.Example.COM/', 'https://qdrant.example.com/'],
  ['https://例え.jp', 'https://xn--r8jz45g.jp/'],
  ['http://localhost:6333', 'http://localhost:6333/'],
  ['http://LOCALHOST:6333', 'http://localhost:6333/'],
  ['http://127.0.0.1:6333', 'http://127.0.0.1:6333/'],
  ['http://127.10.20.30', 'http://127.10.20.30/'],
  ['http://127.255.255.254:1', 'http://127.255.255.254:1/'],
  ['http://[::1]:6333/', 'http://[::1]:6333/'],
  ['http://[::1]:6333/prefix/', 'http://[::1]:6333/prefix/'],
  // plain http to anything that is not loopback
  ['http://qdrant.example.com:6333', R('not-loopback')],
  ['http://10.0.0.5:6333', R('not-loopback')],
  ['http://128.0.0.1', R('not-loopback')],
  ['http://localhost.evil.com', R('not-loopback')],
  ['http://127.0.0.1.evil.com', R('not-loopback')],
  ['http://localhost.', R('not-loopback')],
  ['http://foo.localhost', R('not-loopback')],
  ['http://0.0.0.0:6333', R('not-loopback')],
  ['http://[::]:6333', R('not-loopback')],
  ['http://[::2]', R('not-loopback')],
  ['http://lоcalhost', R('not-loopback')], // Cyrillic о → punycode
  ['http://xn--lcalhost-nbh', R('not-loopback')],
  ['http://[::ffff:127.0.0.1]', R('ipv4-mapped')],
  ['http://[::ffff:7f00:1]', R('ipv4-mapped')],
  // loopback, but written in a form the parser has to rewrite
  ['http://2130706433', R('non-canonical-host')],
  ['http://0x7f000001', R('non-canonical-host')],
  ['http://0x7f.1', R('non-canonical-host')],
  ['http://0177.0.0.1', R('non-canonical-host')],
  ['http://127.1', R('non-canonical-host')],
  ['http://127.0.0.1.', R('non-canonical-host')],
  ['http://127.0.0.1%2e', R('non-canonical-host')],
  ['http://１２７.０.０.１', R('non-canonical-host')],
  ['http://ｌｏｃａｌｈｏｓｔ:6333', R('non-canonical-host')],
  ['http://[0:0:0:0:0:0:0:1]', R('non-canonical-host')],
  // userinfo, fragments and queries
  ['http://127.0.0.1@evil.com', R('credentials')],
  ['http://127.0.0.1:6333@evil.com', R('credentials')],
  ['http://user:secret@127.0.0.1:6333', R('credentials')],
  ['https://user:secret@qdrant.example.com', R('credentials')],
  ['https://apikey@qdrant.example.com', R('credentials')],
  ['http://@127.0.0.1', R('credentials')],
  ['http://evil.com#@127.0.0.1', R('query-or-fragment')],
  ['http://evil.com?@127.0.0.1', R('query-or-fragment')],
  ['https://qdrant.example.com/?api-key=x', R('query-or-fragment')],
  ['http://evil.com\\@127.0.0.1', R('not-loopback')],
  // schemes and spelling
  ['ftp://127.0.0.1', R('scheme')],
  ['file:///etc/passwd', R('scheme')],
  ['ws://127.0.0.1:6333', R('scheme')],
  ['javascript:alert(1)', R('scheme')],
  ['127.0.0.1:6333', R('scheme')],
  ['localhost:6333', R('scheme')],
  ['//127.0.0.1:6333', R('scheme')],
  ['http:127.0.0.1', R('slashes')],
  ['http:/127.0.0.1', R('slashes')],
  ['http:\\\\127.0.0.1', R('slashes')],
  ['http:///127.0.0.1', R('slashes')],
  ['http://127.0.0.1\t.evil.com', R('control-chars')],
  ['http://127.0.0.1\n', R('control-chars')],
  [' http://127.0.0.1', R('control-chars')],
  ['http://127.0.0.1:0', R('port')],
  ['http://127.0.0.1:65536', R('invalid')],
  ['http://[::1', R('invalid')],
  ['https://', R('invalid')],
  ['', R('invalid')],
];

test(`endpoint policy table (${rows.length} rows)`, (t) => {
  t.true(rows.length >= 30);
  for (const [input, want] of rows) {
    if (typeof want === 'string') {
      let got: string | undefined;
      try {
        got = checkEndpoint(input).href;
      } catch (err) {
        t.fail(`${JSON.stringify(input)} refused: ${(err as Error).message}`);
        continue;
      }
      t.is(got, want, JSON.stringify(input));
    } else {
      const err = t.throws(() => checkEndpoint(input), undefined, JSON.stringify(input));
      t.true(isKorttyError(err, 'ENDPOINT_REFUSED'), JSON.stringify(input));
      t.is(
        (err as unknown as { details: { rule: string } }).details.rule,
        want.refused,
        JSON.stringify(input),
      );
    }
  }
});

test('refusal messages redact credentials and escape control characters', (t) => {
  const err = t.throws(() => checkEndpoint('https://admin:hunter2-very-secret@qdrant.example.com/'));
  t.false(err.message.includes('hunter2'));
  t.false(JSON.stringify(err).includes('hunter2'));
  t.true(err.message.startsWith('https://***@qdrant.example.com/'));
  t.is(redactUrl('http://a:b@c:d@127.0.0.1/x'), 'http://***@127.0.0.1/x');
  t.is(redactUrl('http:user:pw@host'), 'http:***@host');
  t.is(redactUrl('http://127.0.0.1\n'), 'http://127.0.0.1\\x0a');
  t.is(redactUrl('https://q.example.com/?api-key=kq-secret#frag'), 'https://q.example.com/?***');
  const q = t.throws(() => checkEndpoint('https://q.example.com/?api-key=kq-secret'));
  t.false(JSON.stringify(q).includes('kq-secret'));
  t.false(q.message.includes('kq-secret'));
});

test('the non-canonical refusal names the canonical host', (t) => {
  const err = t.throws(() => checkEndpoint('http://2130706433:6333'));
  t.regex(err.message, /"2130706433" is read as 127\.0\.0\.1/);
});

test('loopback predicate on parsed hosts', (t) => {
  for (const h of ['localhost', '127.0.0.1', '127.255.255.255', '[::1]']) t.true(isLoopbackHost(h), h);
  for (const h of [
    'localhost.',
    '126.0.0.1',
    '[::ffff:7f00:1]',
    '0.0.0.0',
    '127.0.0.256',
    'a.localhost',
    '',
  ]) {
    t.false(isLoopbackHost(h), h);
  }
});

test('client target splits origin and path prefix', (t) => {
  t.deepEqual(clientTarget(checkEndpoint('https://q.example.com:6333')), {
    url: 'https://q.example.com:6333',
  });
  t.deepEqual(clientTarget(checkEndpoint('https://q.example.com/qdrant/')), {
    url: 'https://q.example.com',
    prefix: '/qdrant',
  });
  t.deepEqual(clientTarget(checkEndpoint('http://[::1]:6333')), { url: 'http://[::1]:6333' });
});
