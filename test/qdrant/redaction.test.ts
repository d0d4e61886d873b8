import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { redactSecret } from '../../src/ai/backends/redact.js';
import { scrub } from '../../src/qdrant/failures.js';
import { encodedForms, redactSecrets } from '../../src/util/redact-secret.js';

// A key echoed back by a server, in the shapes servers and proxies use, never survives into a
// message; ordinary text around it stays readable.

process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-redaction-'));

const KEY = 'kq-Live-7f3a9c21e4b8d605aa1c';

const shapes: [string, string][] = [
  ['as sent', `invalid key ${KEY} for this cluster`],
  ['upper-cased', `INVALID KEY ${KEY.toUpperCase()} FOR THIS CLUSTER`],
  ['lower-cased', `invalid key ${KEY.toLowerCase()}`],
  ['split over two words', `key starts ${KEY.slice(0, 14)} and ends ${KEY.slice(14)}`],
  ['split over two lines', `key: ${KEY.slice(0, 10)}\n${KEY.slice(10)}`],
  ['masked in the middle', `key ${KEY.slice(0, 9)}******${KEY.slice(-6)} refused`],
  ['base64', `headers=${Buffer.from(`{"api-key":"${KEY}"}`).toString('base64')}`],
  ['base64, other alignment', `h=${Buffer.from(`x-api-key: ${KEY}`).toString('base64')}`],
  ['base64, third alignment', `h=${Buffer.from(`k=${KEY}`).toString('base64')}`],
  ['base64url', `t=${Buffer.from(`??>${KEY}`).toString('base64url')}`],
  ['Basic credential', `sent Basic ${Buffer.from(`user:${KEY}`).toString('base64')} upstream`],
  ['hex', `dump ${Buffer.from(`api-key=${KEY};`).toString('hex')}`],
  ['hex, upper-case', `DUMP ${Buffer.from(KEY).toString('hex').toUpperCase()}`],
];

/** Any 8-character run of the key or its encodings, in any letter case. */
function leak(text: string): string | undefined {
  const lower = text.toLowerCase();
  for (const form of [KEY, ...encodedForms(KEY)]) {
    const f = form.toLowerCase();
    for (let i = 0; i + 8 <= f.length; i++) if (lower.includes(f.slice(i, i + 8))) return f.slice(i, i + 8);
  }
  return undefined;
}

for (const [shape, text] of shapes) {
  test(`a key echoed ${shape} is redacted (util, Qdrant scrub, chat backends)`, (t) => {
    t.truthy(leak(text), 'the sample really holds the key');
    for (const out of [redactSecrets(text, [KEY]), scrub(text, [KEY]), redactSecret(text, KEY)]) {
      t.is(leak(out), undefined, out);
      t.regex(out, /\[redacted\]/);
    }
  });
}

test('text without the key is left alone; several keys are all removed', (t) => {
  const plain = "Not found: Collection `docs_v2` doesn't exist! (took 0.0021 s, request 7f3a)";
  t.is(redactSecrets(plain, [KEY]), plain);
  t.is(scrub(plain, [KEY]), plain);
  const other = 'sk-Other-0123456789abcdef';
  const out = redactSecrets(`a ${KEY} b ${other.toUpperCase()} c`, [KEY, other, undefined, '']);
  t.is(out, 'a [redacted] b [redacted] c');
});

test('a short key is matched whole, in any case, and never by fragments', (t) => {
  t.is(
    redactSecrets('key abc12 or ABC12 given; abc1 is not it', ['abc12']),
    'key [redacted] or [redacted] given; abc1 is not it',
  );
});
