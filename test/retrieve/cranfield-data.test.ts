import test from 'ava';
import {
  documentText,
  judgementsFor,
  loadCranfield,
  parseDocs,
  parseQrels,
  parseQueries,
} from '../../bench/cranfield-data.js';

// The eval's reader of ../shared/eval/cranfield, on the real files and on small hostile inputs.

test('the real collection: 1,400 abstracts, 225 queries, judgements joined by file order', async (t) => {
  const c = await loadCranfield();
  t.is(c.docs.length, 1400);
  t.deepEqual(
    c.docs.map((d) => d.id),
    Array.from({ length: 1400 }, (_, i) => String(i + 1)),
  );
  t.is(c.queries.length, 225);
  t.is(c.qrels.length, 1837);
  // The trap: cranqrel query 3 is the third query of cran.qry, whose `.I` id is 004.
  const q3 = c.queries[2]!;
  t.is(q3.ordinal, 3);
  t.is(q3.fileId, '004');
  t.regex(q3.text, /heat conduction in composite slabs/);
  t.false(q3.text.includes('\r'));
  const gains = judgementsFor(c.qrels, 3, 3);
  t.is(gains.get('485'), 3); // grade 1, the complete answer
  t.regex(c.docs[484]!.title, /heat flow in a composite slab/);
  // Abstract 576 has two `.W` sections; the second (about compressor stages) is kept.
  t.regex(c.docs[575]!.text, /stagnation flow/);
  t.regex(c.docs[575]!.text, /stage stall/);
});

test('records: CRLF, bare `.I` sentinel, repeated sections, empty fields', (t) => {
  const docs = parseDocs(
    '.I 1\r\n.T\r\nA title\r\n.A\r\n.B\r\n.W\r\nA title\r\nbody  one\r\n.W\r\nmore\r\n.I 2\r\n.T\r\n.W\r\n.I\r\n',
  );
  t.deepEqual(docs, [
    { id: '1', title: 'A title', authors: '', bibliography: '', text: 'A title\nbody one\nmore' },
    { id: '2', title: '', authors: '', bibliography: '', text: '' },
  ]);
  t.is(documentText(docs[0]!), 'A title\nbody one\nmore\n'); // title already leads the text: once
  t.is(documentText({ ...docs[0]!, text: 'other' }), 'A title\nother\n');
  const qs = parseQueries('.I 001\n.W\nfirst\nquery .\n.I 004\n.W\nsecond\n.I\n');
  t.deepEqual(qs, [
    { ordinal: 1, fileId: '001', text: 'first query .' },
    { ordinal: 2, fileId: '004', text: 'second' },
  ]);
});

test('judgements: grade thresholds, gains, malformed lines', (t) => {
  const qrels = parseQrels('1 10 1\n1 11 3\n1 12 4\n1 13 -1\n2 10 2\n\n');
  t.deepEqual(
    [...judgementsFor(qrels, 1, 3)],
    [
      ['10', 3],
      ['11', 1],
    ],
  );
  t.deepEqual(
    [...judgementsFor(qrels, 1, 4)],
    [
      ['10', 4],
      ['11', 2],
      ['12', 1],
    ],
  );
  t.deepEqual([...judgementsFor(qrels, 2, 3)], [['10', 2]]);
  const err = t.throws(() => parseQrels('1 10 1\n1 x\n'));
  t.regex(err.message, /cranqrel line 2/);
});
