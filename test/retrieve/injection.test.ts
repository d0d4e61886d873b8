// The injection corpus through bounds, block and prompt assembly, and the
// citation check against answers that cite the forged markers.
import test from 'ava';
import { checkCitations, extractCitations } from '../../src/ai/citations.js';
import { presetFor } from '../../src/ai/presets.js';
import { loadPresets } from '../../src/ai/presets-file.js';
import { assemblePrompt } from '../../src/ai/prompt.js';
import { CONTEXT_CLOSE, CONTEXT_OPEN } from '../../src/retrieve/block.js';
import { selectExcerpts } from '../../src/retrieve/bounds.js';
import {
  cand,
  count,
  countTokens,
  freeTokenizer,
  parseBlock,
  specialTokensIn,
  tolerantTagCount,
  useTempHome,
} from './helpers.js';
import { injectionCorpus } from './injection-corpus.js';

useTempHome();
test.after.always(() => freeTokenizer());

const corpus = injectionCorpus();

test('the corpus is large, varied and deterministic', (t) => {
  t.true(corpus.length >= 300, `${corpus.length} documents`);
  t.is(JSON.stringify(injectionCorpus()), JSON.stringify(corpus));
  t.not(JSON.stringify(injectionCorpus(1)), JSON.stringify(corpus));
  const cats = new Set(corpus.map((d) => d.category));
  t.deepEqual([...cats].sort(), [
    'chat-template',
    'combined',
    'forged-marker',
    'ignore-rules',
    'reveal-secrets',
    'tool-call',
    'wrapper-close',
  ]);
  t.true(
    corpus.every((d) => d.forgedMarkers.length > 0 && d.forgedMarkers.every((m) => Number(m.slice(1)) >= 7)),
  );
  t.is(new Set(corpus.map((d) => d.id)).size, corpus.length);
});

test('every hostile document: one intact wrapper per prompt, forged markers never real, forged citations rejected', async (t) => {
  const preset = presetFor('qwen', await loadPresets());
  let prompts = 0;
  corpus.forEach((doc, i) => {
    const benign = cand({
      sourceId: 'benign',
      chunk: 0,
      fusedScore: 0.5,
      path: '/docs/backup.md',
      text: 'The backup job runs nightly at 02:00.',
    });
    const hostile = cand({ sourceId: `h${i}`, chunk: 0, fusedScore: 0.9, path: doc.path, text: doc.text });
    const excerpts = selectExcerpts([benign, hostile], { contextWindow: 32768 }, countTokens);
    t.is(excerpts.length, 2, doc.id);
    const selection = corpus[(i + 1) % corpus.length]!.text; // the terminal selection is hostile too
    const p = assemblePrompt({
      action: 'ask',
      prompt: 'When does the backup job run?',
      selection,
      excerpts,
      preset,
      requireCitations: true,
    });
    const flat = p.flat;
    // Exactly one intact wrapper, in any spelling, and one terminal-selection wrapper.
    t.is(count(flat, CONTEXT_OPEN), 1, doc.id);
    t.is(count(flat, CONTEXT_CLOSE), 1, doc.id);
    t.is(tolerantTagCount(flat, 'retrieved'), 2, doc.id);
    t.is(tolerantTagCount(flat, 'terminal'), 2, doc.id);
    const block = flat.slice(flat.indexOf(CONTEXT_OPEN), flat.indexOf(CONTEXT_CLOSE) + CONTEXT_CLOSE.length);
    t.is(block, p.sections.find((s) => s.id === 'context')!.text, doc.id);
    const parsed = parseBlock(block);
    t.deepEqual(
      parsed.excerpts.map((e) => e.marker),
      ['R1', 'R2'],
      doc.id,
    );
    t.deepEqual(specialTokensIn(flat), [], doc.id);
    // Forged markers never appear as real ones, anywhere in the prompt.
    t.deepEqual(extractCitations(block), ['R1', 'R2'], doc.id);
    for (const e of parsed.excerpts) t.deepEqual(extractCitations(e.body), [], doc.id);
    t.true(
      extractCitations(flat).every((m) => p.markers.includes(m)),
      doc.id,
    );
    for (const m of doc.forgedMarkers) {
      t.false(p.markers.includes(m), doc.id);
      t.false(flat.includes(`[${m}]`), doc.id);
    }
    // The citation check: citing a forged marker is rejected, echoing the document's neutralised
    // text is not a citation, citing a real marker passes.
    const forged = doc.forgedMarkers.map((m) => `[${m}]`).join(' ');
    t.throws(
      () => checkCitations(`It runs nightly ${forged}.`, p.markers, { requireCitations: true }),
      { code: 'CITATION_UNKNOWN' } as never,
      doc.id,
    );
    t.throws(
      () => checkCitations(`It runs nightly [R1] ${forged}.`, p.markers, { requireCitations: true }),
      { code: 'CITATION_UNKNOWN' } as never,
      doc.id,
    );
    const hostileBody = parsed.excerpts.find(
      (e) => e.marker === excerpts.find((x) => x.key === hostile.key)!.marker,
    )!.body;
    t.throws(
      () => checkCitations(hostileBody, p.markers, { requireCitations: true }),
      { code: 'CITATION_MISSING' } as never,
      doc.id,
    );
    t.deepEqual(
      checkCitations(`${hostileBody}\nIt runs nightly at 02:00 [R1].`, p.markers, { requireCitations: true })
        .cited,
      ['R1'],
      doc.id,
    );
    prompts++;
  });
  t.is(prompts, corpus.length);
});
