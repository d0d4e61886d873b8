import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { chunkDocument } from '../../src/chunk/chunk-document.js';
import { disposeTokenizer, getTokenizer } from '../../src/chunk/tokenizer.js';
import { extractDocument } from '../../src/extract/extract.js';
import { htmlToText } from '../../src/extract/html.js';
import { decodeUtf8Text } from '../../src/extract/text.js';
import { buildDocx, buildZip } from './docx-fixture.js';

process.env.KORTTY_HOME = mkdtempSync(join(tmpdir(), 'kortty-extract-home-'));
const dir = mkdtempSync(join(tmpdir(), 'kortty-extract-'));
test.after.always(() => disposeTokenizer());

function write(name: string, data: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

async function expectSkip(t: import('ava').ExecutionContext, p: Promise<unknown>, skipReason: string) {
  const err = (await t.throwsAsync(p)) as {
    code?: string;
    details?: Record<string, unknown>;
    message: string;
  };
  t.is(err.code, 'EXTRACT_FAILED');
  t.is(err.details?.skipReason, skipReason, err.message);
  return err;
}

test('text: BOM stripped, CRLF becomes LF, lone CR kept, JSON/CSV kept verbatim', async (t) => {
  const path = write(
    'notes.txt',
    Buffer.from('\ufeffone\r\ntwo\r\n\r\nfour\rstill four\n{"a": [1, 2]}\nx,y\n', 'utf8'),
  );
  const doc = await extractDocument(path, 'text');
  t.deepEqual(doc, {
    kind: 'lines',
    text: 'one\ntwo\n\nfour\rstill four\n{"a": [1, 2]}\nx,y\n',
    sourceLines: true,
  });
});

test('text: chunk line ranges match the source file lines (file:line citations)', async (t) => {
  // CRLF source with blank lines; line N of the file must be line N of every chunk's range.
  const src = Array.from({ length: 400 }, (_, i) =>
    i % 7 === 3 ? '' : `line ${i + 1} of the file with some words`,
  );
  const path = write('crlf.md', `${src.join('\r\n')}\r\n`);
  const doc = await extractDocument(path, 'text');
  const chunks = chunkDocument(doc, { chunkTokens: 100, overlapTokens: 20 }, getTokenizer());
  t.true(chunks.length > 10);
  for (const c of chunks) {
    const textLines = c.text.trim().split('\n');
    t.is(src[(c.lineStart as number) - 1], textLines[0]);
    t.is(src[(c.lineEnd as number) - 1], textLines[textLines.length - 1]);
  }
});

test('text: invalid UTF-8 and UTF-16 are skipped as not-utf8; a missing file is a read error', async (t) => {
  await expectSkip(t, extractDocument(write('bad.txt', Buffer.from([0x61, 0xff, 0x62])), 'text'), 'not-utf8');
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello', 'utf16le')]);
  const err = await expectSkip(t, extractDocument(write('utf16.txt', utf16), 'text'), 'not-utf8');
  t.regex(err.message, /utf16\.txt: not valid UTF-8/);
  await expectSkip(t, extractDocument(join(dir, 'nope.txt'), 'text'), 'read-error');
});

test('decodeUtf8Text table', (t) => {
  const cases: [number[], string | null][] = [
    [[], ''],
    [[0xef, 0xbb, 0xbf], ''],
    [[0xef, 0xbb, 0xbf, 0x61], 'a'],
    [[0x61, 0x0d, 0x0a, 0x62], 'a\nb'],
    [[0x61, 0x0d, 0x62], 'a\rb'],
    [[0xe2, 0x82], null], // truncated sequence
    [[0xc0, 0xaf], null], // overlong
    [[0xed, 0xa0, 0x80], null], // surrogate
  ];
  for (const [bytes, want] of cases) {
    const r = decodeUtf8Text(Uint8Array.from(bytes));
    t.deepEqual(r.ok ? r.text : null, want, JSON.stringify(bytes));
  }
});

const PAGE = `<!doctype html>
<html><head><title>Title in head</title>
<style>body { color: red } .secret { display: none }</style>
<script>var leaked = "SCRIPT_CONTENT"; document.write("<p>x</p>");</script>
</head><body>
<h1>Main &amp; Heading</h1>
<p>First paragraph with <a href="https://example.com/path">a link</a> and <b>bold</b> text.</p>
<p>Second&nbsp;paragraph: 3 &lt; 4</p>
<ul><li>item one</li><li>item two</li></ul>
<h2>Table</h2>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>alpha</td><td>1</td></tr></table>
<noscript>NOSCRIPT_CONTENT</noscript><template>TEMPLATE_CONTENT</template>
<img src="pic.png" alt="ALT_TEXT">
<!-- COMMENT_CONTENT -->
</body></html>`;

test('HTML: readable text, no markup, no script/style/template/comment content', async (t) => {
  const doc = await extractDocument(write('page.html', PAGE), 'html');
  t.is(doc.kind, 'lines');
  const text = doc.kind === 'lines' ? doc.text : '';
  t.is(doc.kind === 'lines' ? doc.sourceLines : undefined, false);
  for (const bad of [
    '<',
    'SCRIPT_CONTENT',
    'color: red',
    'NOSCRIPT',
    'TEMPLATE',
    'COMMENT',
    'https://',
    'Title in head',
  ]) {
    t.false(text.replace('3 < 4', '').includes(bad), `no ${bad}`);
  }
  t.is(
    text,
    [
      'Main & Heading',
      '',
      'First paragraph with a link and bold text.',
      '',
      'Second\u00a0paragraph: 3 < 4',
      '',
      ' * item one',
      ' * item two',
      '',
      'Table',
      '',
      'Name    Value',
      'alpha   1',
    ].join('\n'),
  );
});

test('htmlToText keeps long documents whole', (t) => {
  // Above html-to-text's default 16 Mi-character input cap, which would silently cut the text.
  const html = `<p>${'word '.repeat(3_400_000)}</p><p>THE END</p>`;
  t.true(htmlToText(html).endsWith('THE END'));
});

test('docx: a real generated .docx gives its paragraphs as text', async (t) => {
  const path = write(
    'report.docx',
    buildDocx(['First paragraph.', 'Zweiter Absatz – äöü 日本語', 'Markup stays text: <b> & <|endoftext|>']),
  );
  const doc = await extractDocument(path, 'docx');
  t.deepEqual(doc, {
    kind: 'lines',
    text: 'First paragraph.\n\nZweiter Absatz – äöü 日本語\n\nMarkup stays text: <b> & <|endoftext|>',
    sourceLines: false,
  });
});

test('docx: a zip without a document, or not a zip at all, is skipped as docx-invalid', async (t) => {
  const noDoc = write('empty-zip.docx', buildZip({ 'readme.txt': 'not a word document' }));
  const err = await expectSkip(t, extractDocument(noDoc, 'docx'), 'docx-invalid');
  t.regex(err.message, /empty-zip\.docx: not a readable \.docx/);
  await expectSkip(
    t,
    extractDocument(write('garbage.docx', Buffer.from('PK\x03\x04 garbage')), 'docx'),
    'docx-invalid',
  );
  await expectSkip(t, extractDocument(join(dir, 'missing.docx'), 'docx'), 'read-error');
});

test('an aborted signal cancels before any work', async (t) => {
  const ac = new AbortController();
  ac.abort();
  const err = (await t.throwsAsync(extractDocument(write('a.txt', 'x'), 'text', { signal: ac.signal }))) as {
    code?: string;
  };
  t.is(err.code, 'EXTRACT_CANCELLED');
});
