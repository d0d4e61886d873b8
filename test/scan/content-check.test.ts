import test from 'ava';
import fc from 'fast-check';
import {
  checkContent,
  contentChars,
  createContentCheck,
  finishContent,
  pushChunk,
} from '../../src/scan/content-check.js';
import { createSimdScratch, simdScannerFor } from '../../src/scan/simd-scan.js';
import { useTempHome } from './tree.js';

useTempHome();

const bytes = (...xs: number[]) => Uint8Array.from(xs);
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

/** Feed `data` split at `cuts` (sorted offsets) through one checker, in a misaligned buffer. */
function chunked(data: Uint8Array, cuts: number[]) {
  const st = createContentCheck('utf8');
  let prev = 0;
  for (const c of [...cuts, data.length]) {
    // Copy each chunk into a buffer at an odd offset to exercise the unaligned word scan.
    const host = new Uint8Array(c - prev + 3);
    host.set(data.subarray(prev, c), 3);
    pushChunk(st, host, 3, 3 + c - prev);
    prev = c;
  }
  const problem = finishContent(st);
  return { problem, chars: problem ? -1 : contentChars(st) };
}

/** Reference verdict: the first problem in byte order, from the WHATWG streaming fatal decoder
 * and the control-byte rule (bytes below 0x80 are always characters of their own). */
function reference(data: Uint8Array): { reason: string | null; chars: number } {
  const dec = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let text = '';
  for (const b of data) {
    try {
      text += dec.decode(Uint8Array.of(b), { stream: true });
    } catch {
      return { reason: 'not-utf8', chars: -1 };
    }
    if (b === 0) return { reason: 'binary', chars: -1 };
    if ((b < 0x20 && ![0x09, 0x0a, 0x0c, 0x0d].includes(b)) || b === 0x7f)
      return { reason: 'control-bytes', chars: -1 };
  }
  try {
    text += dec.decode();
  } catch {
    return { reason: 'not-utf8', chars: -1 };
  }
  return { reason: null, chars: [...text.replace(/^\uFEFF/, '')].length };
}

test('plain text with tab, LF, CR and form feed is accepted and characters are code points', (t) => {
  t.is(checkContent('utf8', utf8('a\tb\r\nc\fd\n')), null);
  const st = createContentCheck('utf8');
  pushChunk(st, utf8('héllo 世界 😀'), 0, utf8('héllo 世界 😀').length);
  t.is(finishContent(st), null);
  t.is(contentChars(st), 10);
});

test('a UTF-8 BOM is accepted and not counted', (t) => {
  const st = createContentCheck('utf8');
  const data = bytes(0xef, 0xbb, 0xbf, 0x61, 0x62);
  pushChunk(st, data, 0, data.length);
  t.is(finishContent(st), null);
  t.is(contentChars(st), 2);
});

test('NUL is binary, other control bytes and DEL are control-bytes, with offsets', (t) => {
  t.deepEqual(checkContent('utf8', utf8('abc\u0000def')), {
    reason: 'binary',
    explanation: 'NUL byte at byte offset 3: binary data, not text',
  });
  t.regex(checkContent('utf8', utf8('abcdefgh\u001b[31m'))!.explanation, /0x1B \(ESC\) at byte offset 8/);
  t.is(checkContent('utf8', utf8('x\u007f'))!.reason, 'control-bytes');
  t.is(checkContent('utf8', utf8('x\u000b'))!.reason, 'control-bytes');
  t.is(checkContent('utf8', utf8('x\u0008'))!.reason, 'control-bytes');
});

test('invalid UTF-8 reports the byte offset; overlongs, surrogates and truncation are invalid', (t) => {
  t.deepEqual(checkContent('utf8', bytes(0x61, 0x62, 0xe9, 0x63)), {
    reason: 'not-utf8',
    explanation: 'not UTF-8: invalid byte sequence at byte offset 2',
  });
  t.is(checkContent('utf8', bytes(0xc0, 0xaf))!.reason, 'not-utf8'); // overlong '/'
  t.is(checkContent('utf8', bytes(0xed, 0xa0, 0x80))!.reason, 'not-utf8'); // surrogate
  t.regex(
    checkContent('utf8', bytes(0x61, 0xe4, 0xb8))!.explanation,
    /offset 1 \(multi-byte sequence cut off at end of file\)/,
  );
});

test('UTF-16 and UTF-32 are named from the BOM or the NUL pattern', (t) => {
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello', 'utf16le')]);
  t.deepEqual(checkContent('utf8', le), {
    reason: 'not-utf8',
    explanation: 'UTF-16 LE text (byte-order mark): only UTF-8 is indexed',
  });
  const be = Buffer.from([0xfe, 0xff, 0, 0x68, 0, 0x69]);
  t.regex(checkContent('utf8', be)!.explanation, /^UTF-16 BE text/);
  t.regex(checkContent('utf8', bytes(0xff, 0xfe, 0, 0, 0x68, 0, 0, 0))!.explanation, /^UTF-32 LE/);
  t.regex(
    checkContent('utf8', Buffer.from('hello world', 'utf16le'))!.explanation,
    /UTF-16 LE text without a byte-order mark/,
  );
});

test('a multi-byte sequence split across chunks at every position is accepted', (t) => {
  const data = utf8('aé世😀b\n'.repeat(3));
  for (let cut = 0; cut <= data.length; cut++) {
    for (let cut2 = cut; cut2 <= data.length; cut2++) {
      const r = chunked(data, [cut, cut2]);
      t.is(r.problem, null);
      t.is(r.chars, [...'aé世😀b\n'.repeat(3)].length);
    }
  }
});

test('chunked verdicts agree with the WHATWG decoder on random bytes and random splits', (t) => {
  const byteArb = fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }),
    fc.constantFrom(0x09, 0x0a, 0x0d, 0x0c, 0x00, 0x1b, 0x7f),
    fc.integer({ min: 0x80, max: 0xff }),
  );
  const textArb = fc.string({ unit: 'grapheme', maxLength: 60 }).map((s) => [...Buffer.from(s, 'utf8')]);
  t.notThrows(() =>
    fc.assert(
      fc.property(
        fc.oneof(fc.array(byteArb, { maxLength: 80 }), textArb),
        fc.array(fc.nat(), { maxLength: 5 }),
        (arr, rawCuts) => {
          const data = Uint8Array.from(arr);
          const cuts = rawCuts.map((c) => c % (data.length + 1)).sort((a, b) => a - b);
          const got = chunked(data, cuts);
          const want = reference(data);
          const wantReason =
            want.reason === 'binary' && got.problem?.reason === 'not-utf8' ? 'not-utf8' : want.reason;
          if ((got.problem?.reason ?? null) !== wantReason) return false;
          return want.reason !== null || got.chars === want.chars;
        },
      ),
      { numRuns: 3000 },
    ),
  );
});

test('PDF and docx are checked by magic number only and count no characters', (t) => {
  t.is(checkContent('pdf', utf8('\n%PDF-1.7\n...')), null);
  t.is(checkContent('pdf', utf8('<html>'))!.reason, 'pdf-invalid');
  t.is(checkContent('docx', bytes(0x50, 0x4b, 0x03, 0x04, 0, 0)), null);
  t.is(checkContent('docx', utf8('not a zip'))!.reason, 'docx-invalid');
  const st = createContentCheck('pdf');
  const data = utf8('%PDF-1.4 \u0000 binary is fine');
  pushChunk(st, data, 0, data.length);
  t.is(finishContent(st), null);
  t.is(contentChars(st), 0);
});

test('the WebAssembly SIMD scan gives the same verdicts and counts as the JS path', (t) => {
  const scratch = createSimdScratch(4096);
  t.truthy(scratch && simdScannerFor(scratch), 'Node 20 on this machine has WebAssembly SIMD');
  const verdict = (data: Uint8Array, host: Uint8Array, at: number) => {
    host.set(data, at);
    const st = createContentCheck('utf8');
    pushChunk(st, host, at, at + data.length);
    const problem = finishContent(st);
    return { problem, chars: problem ? -1 : contentChars(st) };
  };
  const rare = fc.oneof(
    { weight: 40, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 5, arbitrary: fc.constantFrom(0x09, 0x0a, 0x0d, 0x0c) },
    { weight: 1, arbitrary: fc.constantFrom(0x00, 0x01, 0x08, 0x0b, 0x0e, 0x10, 0x1b, 0x1f, 0x7f) },
  );
  const text = fc
    .string({ unit: 'grapheme', minLength: 20, maxLength: 300 })
    .map((x) => [...Buffer.from(x, 'utf8')]);
  t.notThrows(() =>
    fc.assert(
      fc.property(
        fc.oneof(fc.array(rare, { minLength: 60, maxLength: 700 }), text),
        fc.nat(40),
        (arr, at) => {
          const data = Uint8Array.from(arr);
          const viaSimd = verdict(data, scratch!, at);
          const viaJs = verdict(data, new Uint8Array(data.length + 64), at);
          const want = reference(data);
          return (
            JSON.stringify(viaSimd) === JSON.stringify(viaJs) &&
            (viaJs.problem?.reason ?? null) ===
              (want.reason === 'binary' && viaJs.problem?.reason === 'not-utf8' ? 'not-utf8' : want.reason)
          );
        },
      ),
      { numRuns: 3000 },
    ),
  );
  // A forbidden byte in every position of a 64-byte step is found at its exact offset.
  for (let k = 0; k < 200; k++) {
    const data = new Uint8Array(256).fill(0x61);
    data[k] = 0x1b;
    t.regex(verdict(data, scratch!, 3).problem!.explanation, new RegExp(`at byte offset ${k};`));
  }
});
