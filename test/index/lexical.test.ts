import test from 'ava';
import { buildBm25, DEFAULT_WEIGHTS, type LexicalDoc } from '../../src/index/bm25.js';
import { chunkHeadings, documentTitle, fileStem } from '../../src/index/fields.js';
import { searchLexical } from '../../src/index/lexical-search.js';
import { tokenize } from '../../src/index/tokenize.js';

// The terminal- and code-aware tokenizer, the stemmer, the fields, proximity and the explanation,
// on real indexes built by buildBm25.

const has =
  (text: string, ...terms: string[]) =>
  (t: import('ava').ExecutionContext) => {
    const got = tokenize(text);
    for (const term of terms) t.true(got.includes(term), `${term} in ${JSON.stringify(got)}`);
  };

test(
  'flags stay findable as flags and as words',
  has('rsync -avz --delete src/ host:dst/', '-avz', 'avz', '--delete', 'delet', '=delete', 'rsync'),
);
test(
  'snake_case and camelCase are indexed whole and as their parts',
  has(
    'atomic_write readIndex HTTPServer',
    'atomic_write',
    'atom',
    'write',
    'readindex',
    'read',
    'index',
    'httpserver',
    'http',
    'server',
  ),
);
test(
  'dotted names and paths are indexed whole and as their parts',
  has('os.path.join /usr/bin/tar.', 'os.path.join', 'os', 'path', 'join', 'usr/bin/tar', 'usr', 'bin', 'tar'),
);
test(
  'error codes are kept whole',
  has('ENOENT: E0425 then HTTP 502 Bad Gateway', 'enoent', 'e0425', 'http 502', '502'),
);

test('a trailing colon or dot is not part of a word; a hyphen alone is no flag', (t) => {
  t.deepEqual(tokenize('tar: end. - --'), ['tar', 'end']);
});

test('Porter2 stems meet across forms; the exact form is kept when it differs', (t) => {
  for (const [a, b] of [
    ['questions', 'questioning'],
    ['archiving', 'archives'],
    ['directories', 'directory'],
  ] as const)
    t.is(tokenize(a)[0], tokenize(b)[0], `${a} ~ ${b}`);
  t.deepEqual(tokenize('running'), ['run', '=running']);
  t.deepEqual(tokenize('tar'), ['tar']);
});

test('an exact-form match outranks a stem-only match', async (t) => {
  const texts = ['the archives are here', 'the archiving is here'];
  const index = await buildBm25(texts.map((body) => ({ body, title: '', headings: '' })));
  const hits = searchLexical(index, 'archiving', 2, (o) => texts[o]!);
  t.deepEqual(
    hits.map((h) => h.chunkOrdinal),
    [1, 0],
  );
  t.deepEqual(hits[0]!.explain.matched, ['archiv', '=archiving']);
  t.deepEqual(hits[1]!.explain.matched, ['archiv']);
});

test('title: file name without suffixes, a man page NAME line, a first heading, a short first line', (t) => {
  t.is(fileStem('man/tar.1.txt'), 'tar');
  t.is(fileStem('notes/README.md'), 'README');
  t.is(fileStem('.bashrc'), '.bashrc');
  t.is(
    documentTitle('tar.txt', 'text', 'TAR(1)\n\nNAME\n       tar - an archiving utility\n'),
    'tar\ntar - an archiving utility',
  );
  t.is(
    documentTitle('a/guide.md', 'markdown', 'intro text\n\n# Install guide\nbody'),
    'guide\nInstall guide',
  );
  t.is(documentTitle('paper.pdf', 'pdf', 'Flow over wings\nAbstract text'), 'paper\nFlow over wings');
  t.is(documentTitle('main.ts', 'typescript', 'import x from "y";\n'), 'main');
  t.is(chunkHeadings('# One\ntext\nSYNOPSIS\n  tar -c\nTwo\n===\nplain line'), 'One\nSYNOPSIS\nTwo');
});

test('a title match beats the same words in the body of a longer chunk', async (t) => {
  const docs: LexicalDoc[] = [
    { body: 'options for archives: rsync copies files and tar can pack them', title: 'rsync', headings: '' },
    { body: 'tar packs files into an archive', title: 'tar\ntar - an archiving utility', headings: '' },
    { body: 'tar is mentioned here once with other words', title: 'notes', headings: '' },
  ];
  const index = await buildBm25(docs);
  const hits = searchLexical(index, 'tar: Cannot open: No such file or directory', 3, (o) => docs[o]!.body);
  t.is(hits[0]!.chunkOrdinal, 1);
  t.true(hits[0]!.explain.shares.title > 0.2, JSON.stringify(hits[0]!.explain));
  // with no title weight the title counts for nothing and the share is 0
  const flat = searchLexical(index, 'tar', 3, (o) => docs[o]!.body, undefined, {
    ...DEFAULT_WEIGHTS,
    title: 0,
  });
  t.is(flat.find((h) => h.chunkOrdinal === 1)!.explain.shares.title, 0);
});

test('a heading match weighs more than a body match', async (t) => {
  const texts = ['Compression\n===========\nsome text about levels', 'some text about compression levels'];
  const docs = texts.map((body) => ({ body, title: '', headings: chunkHeadings(body) }));
  const index = await buildBm25(docs);
  const hits = searchLexical(index, 'compression', 2, (o) => texts[o]!);
  t.is(hits[0]!.chunkOrdinal, 0);
  t.true(hits[0]!.explain.shares.headings > 0);
});

test('proximity: the query words side by side outrank the same words far apart', async (t) => {
  const filler = 'alpha beta gamma delta epsilon zeta eta theta iota kappa '.repeat(3);
  const texts = [`connection ${filler} refused ${filler}`, `${filler} connection refused ${filler}`];
  const index = await buildBm25(texts.map((body) => ({ body, title: '', headings: '' })));
  const hits = searchLexical(index, 'connection refused', 2, (o) => texts[o]!);
  t.deepEqual(
    hits.map((h) => h.chunkOrdinal),
    [1, 0],
  );
  t.true(hits[0]!.explain.shares.proximity > hits[1]!.explain.shares.proximity);
  // without the proximity signal the two tie (same terms, same length) and the lower ordinal wins
  const off = searchLexical(index, 'connection refused', 2, (o) => texts[o]!, undefined, {
    ...DEFAULT_WEIGHTS,
    proximity: 0,
  });
  t.deepEqual(
    off.map((h) => h.chunkOrdinal),
    [0, 1],
  );
});

test('explain: matched terms in query order and shares summing to 1', async (t) => {
  const docs: LexicalDoc[] = [
    { body: '# Usage\nrun tar --create to pack files', title: 'tar\ntar - archiver', headings: 'Usage' },
    { body: 'usage of rsync --delete', title: 'rsync', headings: '' },
  ];
  const index = await buildBm25(docs);
  const hits = searchLexical(index, 'tar --create usage', 2, (o) => docs[o]!.body);
  t.deepEqual(hits[0]!.explain.matched, ['tar', '--create', 'creat', '=create', 'usag', '=usage']);
  for (const h of hits) {
    const s = h.explain.shares;
    t.true(Math.abs(s.title + s.headings + s.body + s.proximity - 1) < 1e-9, JSON.stringify(s));
    for (const v of Object.values(s)) t.true(v >= 0 && v <= 1);
  }
  t.true(hits[0]!.explain.shares.title > 0 && hits[0]!.explain.shares.proximity > 0);
});
