import test from 'ava';
import {
  bm25Ceiling,
  bm25Idf,
  bm25Stats,
  buildBm25,
  DEFAULT_WEIGHTS,
  type LexicalDoc,
  nameTerm,
} from '../../src/index/bm25.js';
import { chunkHeadings, documentNames, documentTitle, fileStem } from '../../src/index/fields.js';
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
  t.true(hits[0]!.explain.shares.title > 0.1, JSON.stringify(hits[0]!.explain));
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
    t.true(Math.abs(s.title + s.headings + s.body + s.proximity + s.passage - 1) < 1e-9, JSON.stringify(s));
    for (const v of Object.values(s)) t.true(v >= 0 && v <= 1);
  }
  t.true(hits[0]!.explain.shares.title > 0 && hits[0]!.explain.shares.proximity > 0);
});

test('name match: the page named after the program outranks a page that mentions it everywhere', async (t) => {
  const busy =
    'tar archives: tar -xzf unpacks a tar.gz, tar -tf lists a tar file, tar cannot open what is missing. ';
  const docs: LexicalDoc[] = [
    { body: busy.repeat(6), title: 'lesspipe\nlesspipe - input preprocessor for less', headings: '' },
    {
      body: 'Create and extract archives. Options: -x extract, -f file.',
      title: 'tar\ntar - an archiving utility',
      headings: '',
    },
    {
      body: 'Compress or expand files.',
      title: 'gzip\ngzip, gunzip - compress or expand files',
      headings: '',
    },
    // Other pages of the collection: the name's idf counts over all chunks, as in a real store.
    ...Array.from({ length: 17 }, (_, i) => ({
      body: `page ${i} about printers and queues`,
      title: `lp${i}`,
      headings: '',
    })),
  ];
  const index = await buildBm25(docs);
  const query = 'tar: site.tar.gz: Cannot open: No such file or directory';
  const textOf = (o: number) => docs[o]!.body;
  // Without the name match the page full of "tar" wins: BM25F saturates the title's evidence.
  t.is(searchLexical(index, query, 3, textOf)[0]!.chunkOrdinal, 0);
  const names = [{ term: nameTerm('tar')!, ordinals: [1], rank: 0 }];
  const hits = searchLexical(index, query, 3, textOf, undefined, DEFAULT_WEIGHTS, names);
  t.is(hits[0]!.chunkOrdinal, 1);
  t.true(hits[0]!.explain.shares.name > 0.5, JSON.stringify(hits[0]!.explain));
  t.is(hits.find((h) => h.chunkOrdinal === 0)!.explain.shares.name, 0);
  // The bonus is the name's idf over the chunks bearing it (1 of 20 here), weighted.
  const bonus = DEFAULT_WEIGHTS.name * bm25Idf(20, 1) * 2.2;
  const plain = searchLexical(index, query, 3, textOf).find((h) => h.chunkOrdinal === 1)!;
  t.true(Math.abs(hits[0]!.score - plain.score - bonus) < 1e-9);
  // A second program weighs half; a name no document bears adds nothing; a filtered-out chunk gets nothing.
  const second = searchLexical(index, query, 3, textOf, undefined, DEFAULT_WEIGHTS, [
    { ...names[0]!, rank: 1 },
  ]);
  t.true(Math.abs(second.find((h) => h.chunkOrdinal === 1)!.score - plain.score - bonus / 2) < 1e-9);
  const none = searchLexical(index, query, 3, textOf, undefined, DEFAULT_WEIGHTS, [
    { term: 'zip', ordinals: [], rank: 0 },
  ]);
  t.deepEqual(none, searchLexical(index, query, 3, textOf));
  const mask = new Uint8Array(20).fill(1);
  mask[1] = 0;
  const masked = searchLexical(index, query, 3, textOf, mask, DEFAULT_WEIGHTS, names);
  t.false(masked.some((h) => h.chunkOrdinal === 1));
  // A document named after the program is a hit even when it shares no word with the query.
  const bare = searchLexical(index, 'zzz', 3, textOf, undefined, DEFAULT_WEIGHTS, names);
  t.deepEqual(
    bare.map((h) => h.chunkOrdinal),
    [1],
  );
  // The ceiling holds the name bonus when some store bears the name: shares stay below 1.
  const stats = bm25Stats(index, query, names);
  t.deepEqual([...stats.names], [['tar', { chunks: 1, rank: 0 }]]);
  const ceiling = bm25Ceiling(stats, stats.df.keys(), DEFAULT_WEIGHTS, new Map([['tar', 0]]));
  t.true(Math.abs(ceiling - bm25Ceiling(stats, stats.df.keys()) - bonus) < 1e-9);
  for (const h of hits) t.true(h.score < ceiling);
});

test('document names: the file stem and the names a man page NAME line lists', (t) => {
  t.deepEqual(
    documentNames(
      '/man/bzip2.1.txt',
      'BZIP2(1)\n\nNAME\n       bzip2, bunzip2 - a block-sorting file compressor\n',
    ),
    ['bzip2', 'bunzip2'],
  );
  t.deepEqual(documentNames('notes/Deploy.md', '# Deploy\nNAME\nnot a name line'), ['deploy']);
  t.deepEqual(documentNames('ssh-keygen.txt', 'NAME\n     ssh-keygen — OpenSSH authentication key utility'), [
    'ssh-keygen',
  ]);
  t.is(nameTerm('tar'), 'tar');
  t.is(nameTerm('ssh-keygen'), 'ssh-keygen');
  t.is(nameTerm('python3'), 'python3');
});
