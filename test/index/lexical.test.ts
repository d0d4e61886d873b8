import test from 'ava';
import {
  ALIAS_NAME_SHARE,
  bm25Ceiling,
  bm25Idf,
  bm25Stats,
  buildBm25,
  DEFAULT_WEIGHTS,
  type LexicalDoc,
  nameTerm,
  queryTerms,
} from '../../src/index/bm25.js';
import { chunkHeadings, documentNames, documentTitle, fileStem } from '../../src/index/fields.js';
import { MANY_CHUNKS_DAMPING, searchLexical } from '../../src/index/lexical-search.js';
import { tokenize } from '../../src/index/tokenize.js';

// The terminal- and code-aware tokenizer, the stemmer, the fields, proximity and the explanation,
// on real indexes built by buildBm25.

/** A chunk with a body and its document's title, no headings. */
const titled = (body: string, title: string): LexicalDoc => ({ body, title, headings: '' });

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
    titled(busy.repeat(6), 'lesspipe\nlesspipe - input preprocessor for less'),
    titled('Create and extract archives. Options: -x extract, -f file.', 'tar\ntar - an archiving utility'),
    titled('Compress or expand files.', 'gzip\ngzip, gunzip - compress or expand files'),
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
  // A document that only lists the name gains its share of the bonus; the idf counts its chunks.
  const listed = [{ ...names[0]!, aliases: [2] }];
  const both = searchLexical(index, query, 20, textOf, undefined, DEFAULT_WEIGHTS, listed);
  const twoBonus = DEFAULT_WEIGHTS.name * bm25Idf(20, 2) * 2.2;
  const plainAll = searchLexical(index, query, 20, textOf);
  const gain = (o: number) =>
    both.find((h) => h.chunkOrdinal === o)!.score - (plainAll.find((h) => h.chunkOrdinal === o)?.score ?? 0);
  t.true(Math.abs(gain(1) - twoBonus) < 1e-9);
  t.true(Math.abs(gain(2) - twoBonus * ALIAS_NAME_SHARE) < 1e-9);
  t.deepEqual([...bm25Stats(index, query, listed).names], [['tar', { chunks: 2, rank: 0 }]]);
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

/** Body-only documents, then `fillers` unrelated ones (so the words above have an idf). */
const plainDocs = (bodies: readonly string[], fillers: number): LexicalDoc[] =>
  [...bodies, ...Array.from({ length: fillers }, (_, i) => `filler page ${i} about printers`)].map(
    (body) => ({
      body,
      title: '',
      headings: '',
    }),
  );

test('synonyms: a user word meets the manual word as one term, weighted, with the class idf', async (t) => {
  const docs = plainDocs(['delete the old files', 'remove the old files', 'copy the old files'], 7);
  const index = await buildBm25(docs);
  const textOf = (o: number) => docs[o]!.body;
  const terms = queryTerms('delete files');
  t.true(terms[0]!.synonyms!.includes('remov'), JSON.stringify(terms[0]));
  // An exact form, or a word of no group, has none.
  t.is(terms.find((x) => x.term === '=delete')!.synonyms, undefined);
  const score = (weights: typeof DEFAULT_WEIGHTS, ordinal: number) =>
    searchLexical(index, 'delete files', 10, textOf, undefined, weights).find(
      (h) => h.chunkOrdinal === ordinal,
    );
  // `remove` counts as `delete` (the exact form still favours the user's own word) …
  const on = { ...DEFAULT_WEIGHTS, synonym: 1 };
  t.true(score(on, 1)!.score > score(on, 2)!.score);
  t.true(score(on, 0)!.score > score(on, 1)!.score);
  t.deepEqual(score(on, 1)!.explain.matched, ['delet', 'file', '=files']);
  // … at the synonym's weight, and not at all without it.
  const half = { ...DEFAULT_WEIGHTS, synonym: 0.5 };
  t.true(score(half, 1)!.score < score(on, 1)!.score && score(half, 1)!.score > score(half, 2)!.score);
  const off = { ...DEFAULT_WEIGHTS, synonym: 0 };
  t.is(score(off, 1)!.score, score(off, 2)!.score);
  t.deepEqual(score(off, 1)!.explain.matched, ['file', '=files']);
  // The class is as common as its members together: `delete` alone (df 1) weighs more without it.
  t.true(score(off, 0)!.score > score(on, 0)!.score);
  // The ceiling still bounds every score.
  const stats = bm25Stats(index, 'delete files');
  for (const h of searchLexical(index, 'delete files', 10, textOf))
    t.true(h.score < bm25Ceiling(stats, stats.df.keys()));
});

test("everyday words reach the manual's word one way: a user's drive finds disk, a manual's disk not drive", async (t) => {
  const docs = plainDocs(['report file system disk space usage', 'the drive bay holds one tray'], 8);
  const index = await buildBm25(docs);
  const textOf = (o: number) => docs[o]!.body;
  const W = { ...DEFAULT_WEIGHTS, synonym: 0.5 };
  const found = (q: string) => searchLexical(index, q, 10, textOf, undefined, W).map((h) => h.chunkOrdinal);
  // `drive` is the user's word: it also matches the manual's `disk`, below its own word.
  t.deepEqual(queryTerms('drive')[0]!.synonyms, ['disk']);
  t.deepEqual(found('drive'), [1, 0]);
  // `disk` is the manual's: it matches disk alone.
  t.is(queryTerms('disk')[0]!.synonyms, undefined);
  t.deepEqual(found('disk'), [0]);
  // The same for words a group already holds: `own` reaches owner, and owner keeps its group.
  t.true(queryTerms('own')[0]!.synonyms!.includes('owner'));
  t.false(queryTerms('owner')[0]!.synonyms!.includes('own'));
  // Off with the synonym weight, as the groups are.
  t.deepEqual(
    searchLexical(index, 'drive', 10, textOf, undefined, { ...W, synonym: 0 }).map((h) => h.chunkOrdinal),
    [1],
  );
});

test('title match: a title naming the task outranks a body repeating the words, once per document', async (t) => {
  const busy = 'count the lines of each file and the output lines count. ';
  const docs: LexicalDoc[] = [
    titled(busy.repeat(3), 'rsync\nrsync - a fast remote copying tool'),
    titled(
      '-c, --count  prefix lines by the number of occurrences',
      'uniq\nuniq - report or omit repeated lines',
    ),
    titled('-d, --repeated  only print duplicate lines', 'uniq\nuniq - report or omit repeated lines'),
    ...Array.from({ length: 17 }, (_, i) => ({
      body: `page ${i} about printers`,
      title: `lp${i}`,
      headings: '',
    })),
  ];
  const index = await buildBm25(docs);
  const textOf = (o: number) => docs[o]!.body;
  const query = 'count repeated lines in a file';
  // Synonyms apart (`repeated` has some), so the bonus below is each word's own idf.
  const W = { ...DEFAULT_WEIGHTS, synonym: 0 };
  // Without the title match the busy body wins: inside BM25F the title's evidence saturates with it.
  const flat = searchLexical(index, query, 3, textOf, undefined, { ...W, titleMatch: 0 });
  t.is(flat[0]!.chunkOrdinal, 0);
  const hits = searchLexical(index, query, 3, textOf, undefined, W);
  t.is(hits[0]!.chunkOrdinal, 1, JSON.stringify(hits));
  // Each query stem in the title adds titleMatch × idf × (k1 + 1): `repeat` and `line` here.
  const idf = (term: string) => bm25Idf(20, bm25Stats(index, term).df.get(term)!);
  const bonus = W.titleMatch * (idf('repeat') + idf('line')) * 2.2;
  const of = (list: typeof hits, o: number) => list.find((h) => h.chunkOrdinal === o)!;
  t.true(Math.abs(of(hits, 1).score - of(flat, 1).score - bonus) < 1e-9);
  // With the chunks' documents known, only the document's best chunk keeps the title match (and
  // both chunks of uniq's two-chunk page weigh a little less: see the damping test below).
  const documentOf = Uint32Array.from([0, 1, 1, ...Array.from({ length: 17 }, (_, i) => i + 2)]);
  const once = searchLexical(index, query, 3, textOf, undefined, W, [], documentOf);
  const two = 1 / (1 + MANY_CHUNKS_DAMPING * Math.log(2));
  t.true(Math.abs(of(once, 1).score - two * of(hits, 1).score) < 1e-9);
  t.true(Math.abs(of(once, 2).score - two * of(flat, 2).score) < 1e-9);
  t.true(of(once, 2).explain.shares.title < of(hits, 2).explain.shares.title);
  // The defaults (synonyms on) rank the same way.
  t.is(
    searchLexical(index, query, 3, textOf, undefined, DEFAULT_WEIGHTS, [], documentOf)[0]!.chunkOrdinal,
    1,
  );
  const stats = bm25Stats(index, query);
  for (const h of hits) t.true(h.score < bm25Ceiling(stats, stats.df.keys()));
});

test('a chunk of a document of many chunks weighs less on its words, never on its name', async (t) => {
  // One chunk of a 20-chunk manual and a one-chunk page hold the same text.
  const text = 'print the first lines of a log file';
  const docs: LexicalDoc[] = [
    titled(text, 'manual'),
    ...Array.from({ length: 19 }, (_, i) => titled(`section ${i} on printers and queues`, 'manual')),
    titled(text, 'note'),
    ...Array.from({ length: 9 }, (_, i) => titled(`page ${i} about gardens`, `garden${i}`)),
  ];
  const index = await buildBm25(docs);
  const textOf = (o: number) => docs[o]!.body;
  const documentOf = Uint32Array.from(docs.map((_d, i) => (i < 20 ? 0 : i - 19)));
  const query = 'first lines of a log';
  // Without the documents known the two tie, and the lower ordinal (the manual's chunk) leads.
  const flat = searchLexical(index, query, 2, textOf);
  t.deepEqual(
    flat.map((h) => h.chunkOrdinal),
    [0, 20],
  );
  t.is(flat[0]!.score, flat[1]!.score);
  const hits = searchLexical(index, query, 2, textOf, undefined, DEFAULT_WEIGHTS, [], documentOf);
  t.deepEqual(
    hits.map((h) => h.chunkOrdinal),
    [20, 0],
  );
  const twenty = 1 / (1 + MANY_CHUNKS_DAMPING * Math.log(20));
  t.true(Math.abs(hits[0]!.score - flat[0]!.score) < 1e-9, 'a one-chunk page is not damped');
  t.true(Math.abs(hits[1]!.score - twenty * flat[0]!.score) < 1e-9);
  // The name bonus stays whole: named, the manual leads by its full bonus.
  const names = [{ term: nameTerm('manual')!, ordinals: Array.from({ length: 20 }, (_, i) => i), rank: 0 }];
  const named = searchLexical(index, query, 2, textOf, undefined, DEFAULT_WEIGHTS, names, documentOf);
  t.is(named[0]!.chunkOrdinal, 0);
  const bonus = DEFAULT_WEIGHTS.name * bm25Idf(docs.length, 20) * 2.2;
  t.true(Math.abs(named[0]!.score - (twenty * flat[0]!.score + bonus)) < 1e-9, JSON.stringify(named[0]));
  for (const h of [...hits, ...named]) {
    const s = h.explain.shares;
    t.true(Math.abs(s.title + s.headings + s.body + s.proximity + s.passage + s.name - 1) < 1e-9);
  }
});

test('a bare number in a query weighs less than a word: it is the user’s value, not the manual’s', async (t) => {
  const weightOf = (q: string, term: string) => queryTerms(q).find((x) => x.term === term)?.weight;
  t.is(weightOf('which process is listening on port 8080', '8080'), DEFAULT_WEIGHTS.number);
  t.is(weightOf('which process is listening on port 8080', 'port'), 1);
  // Numbers joined to letters are terms of their own and keep their weight.
  t.is(weightOf('HTTP 502 Bad Gateway', 'http 502'), 1);
  t.is(weightOf('error[E0425]: cannot find value', 'e0425'), 1);
  t.is(weightOf('mkfs.ext4 /dev/sdb1', 'ext4'), 1);

  // As in the man pages: the page about listening sockets against an example URL on port 8080.
  const docs: LexicalDoc[] = [
    titled('-l, --listening display only listening sockets. -p, --processes show process using socket', 'ss'),
    titled('example: tsget -h https://tsa.example.com:8080/ stamps each request on that port', 'tsget'),
    ...Array.from({ length: 8 }, (_, i) =>
      titled(`printer queue ${i} holds jobs for each process`, `lp${i}`),
    ),
  ];
  const index = await buildBm25(docs);
  const textOf = (o: number) => docs[o]!.body;
  const query = 'which process is listening on port 8080';
  const first = (weights: typeof DEFAULT_WEIGHTS) =>
    searchLexical(index, query, 3, textOf, undefined, weights)[0]!;
  t.is(first(DEFAULT_WEIGHTS).chunkOrdinal, 0);
  // Weighed like a word, the rare number alone carries the example page past the answer.
  t.is(first({ ...DEFAULT_WEIGHTS, number: 1 }).chunkOrdinal, 1);
});
