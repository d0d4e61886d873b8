import test from 'ava';
import { checkCitations, extractCitations, formatSourceRef } from '../../src/ai/citations.js';
import { useTempHome } from '../retrieve/helpers.js';

useTempHome();
const retrieved = ['R1', 'R2', 'R3'];
const required = { requireCitations: true };

test('extraction: single, lists, adjacent; first-appearance order, no duplicates', (t) => {
  t.deepEqual(extractCitations('a [R2] b [R1, R3] c [R2][R1] d [R4; R1]'), ['R2', 'R1', 'R3', 'R4']);
  t.deepEqual(extractCitations('no markers: (R1) [r1] [R 1] [R1-R3] R1 [ref R1]'), []);
  t.deepEqual(extractCitations('full width ［Ｒ７］ and hidden [R\u200B8]'), ['R7', 'R8']);
});

test('an answer without any marker is rejected when citations are required', (t) => {
  const err = t.throws(() => checkCitations('The job runs nightly.', retrieved, required), {
    code: 'CITATION_MISSING',
  } as never);
  t.is(err!.message, 'the answer cites no retrieved excerpt marker although citations are required');
  t.deepEqual(checkCitations('The job runs nightly.', retrieved, { requireCitations: false }), {
    cited: [],
    unknown: [],
  });
});

test('an answer citing a marker that was not retrieved is rejected, naming it', (t) => {
  const err = t.throws(() => checkCitations('Nightly [R1], weekly [R9].', retrieved, required), {
    code: 'CITATION_UNKNOWN',
  } as never);
  t.is(err!.message, 'the answer cites [R9], which was not retrieved');
  const two = t.throws(() => checkCitations('[R7][R8]', retrieved, required), {
    code: 'CITATION_UNKNOWN',
  } as never);
  t.is(two!.message, 'the answer cites [R7], [R8], which were not retrieved');
  t.deepEqual((two as unknown as { details: { unknown: string[] } }).details.unknown, ['R7', 'R8']);
  t.deepEqual(checkCitations('[R9]', retrieved, { requireCitations: false }), { cited: [], unknown: ['R9'] });
});

test('a good answer is accepted and returns the cited markers', (t) => {
  t.deepEqual(checkCitations('Nightly at 02:00 [R2]. Logs: /var/log [R1, R2].', retrieved, required), {
    cited: ['R2', 'R1'],
    unknown: [],
  });
});

test('with nothing retrieved there is nothing to cite, but invented markers still fail', (t) => {
  t.deepEqual(checkCitations('No excerpts; general answer.', [], required), { cited: [], unknown: [] });
  t.throws(() => checkCitations('See [R1].', [], required), { code: 'CITATION_UNKNOWN' } as never);
});

test('cited sources print as path:line or path#page', (t) => {
  t.is(formatSourceRef({ path: '/d/a.md', lineStart: 12 }), '/d/a.md:12');
  t.is(formatSourceRef({ path: '/d/b.pdf', pageStart: 3 }), '/d/b.pdf#3');
  t.is(formatSourceRef({ path: '/d/c' }), '/d/c');
});
