import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import test from 'ava';
import { disposeTokenizer, tokenizerLoaded } from '../../src/chunk/tokenizer.js';
import { addLocalModel } from '../../src/embed/model-registry.js';
import { STARTER_MODEL_ID } from '../../src/embed/starter-model.js';
import { createSearchDeps, search } from '../../src/retrieve/search.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore, findStore } from '../../src/store/engine.js';
import type { StoreConfig } from '../../src/store/store-types.js';
import { smallLexicalModel } from '../helpers/models.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { manPages, notes, TAR_QUERY } from './crowding-corpus.js';

// Retrieval over real stores on disk (scan → chunk → embed with the generated starter model →
// snapshot), searched together: a store's hits must earn their place against every store's hits,
// and one folder source can fill all six excerpts.

async function storeOf(
  home: string,
  name: string,
  folders: Record<string, string>[],
  opts: { modelId?: string; chunkTokens?: number } = {},
): Promise<StoreConfig> {
  await createStore(
    {
      name,
      modelId: opts.modelId ?? STARTER_MODEL_ID,
      ...(opts.chunkTokens ? { chunk: { chunkTokens: opts.chunkTokens, overlapTokens: 10 } } : {}),
    },
    home,
  );
  const inputs = [];
  for (const files of folders) {
    const root = await mkdtemp(join(tmpdir(), `kortty-${name.toLowerCase().replace(/\W/g, '')}-`));
    await writeTree(root, files);
    inputs.push({ kind: 'folder' as const, path: root });
  }
  const res = await addSources(name, inputs, { ports: createDefaultPorts(home) }, home);
  if (res.summary.problems > 0) throw new Error(`${name}: ${res.summary.problems} problems`);
  return findStore(name, home);
}

const file = (p: string) => basename(p);

test.serial(
  'a block that fits by its bytes is assembled without loading the tokenizer; a large one loads it',
  async (t) => {
    const home = await homeWithStarter();
    const small = await storeOf(home, 'Small notes', [notes()]);
    const large = await storeOf(home, 'Large', [
      Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`part-${i}.md`, prose('archive', 60, i)])),
    ]);
    const deps = createSearchDeps(home);
    try {
      disposeTokenizer(); // indexing used it
      const res = await search({ stores: [small], query: 'release archive upload' }, deps);
      t.true(res.excerpts.length > 0);
      t.false(tokenizerLoaded(), 'no token was counted');
      t.true(
        res.excerpts.every((e) => e.tokens > 0 && e.tokens === e.originalTokens),
        'counts come from the chunk table',
      );
      const big = await search({ stores: [large], query: 'archive' }, deps);
      t.true(tokenizerLoaded());
      t.true(
        big.excerpts.some((e) => e.trimmed),
        'the budget binds',
      );
    } finally {
      await deps.close();
    }
  },
);

test('notes next to 300 man pages: tar.txt is [R1] for the tar question, the notes do not crowd it out', async (t) => {
  const home = await homeWithStarter();
  const man = await storeOf(home, 'Man pages', [manPages(300)]);
  const notesStore = await storeOf(home, 'Notes', [notes()]);
  const deps = createSearchDeps(home);
  try {
    const res = await search({ stores: [notesStore, man], query: TAR_QUERY }, deps);
    t.is(
      file(res.excerpts[0]!.path),
      'tar.txt',
      res.excerpts.map((e) => `${e.marker} ${file(e.path)}`).join(', '),
    );
    t.regex(res.block, /^\[R1\] .*tar\.txt · lines \d+-\d+ · store Man pages$/m);
    // tar.txt wins on match quality, not on a tie-break: every note scores strictly lower.
    t.is(file(res.candidates[0]!.path), 'tar.txt');
    const noteScores = res.candidates.filter((c) => c.storeId === notesStore.id).map((c) => c.fusedScore);
    t.true(noteScores.length > 0 && Math.max(...noteScores) < res.candidates[0]!.fusedScore);
    // Searched alone, each store's best hit has the top fused score (rank 1 in both lists): scores
    // of separately fused stores say nothing about match quality across stores.
    for (const store of [notesStore, man]) {
      const alone = await search({ stores: [store], query: TAR_QUERY }, deps);
      t.is(alone.candidates[0]!.fusedScore, res.candidates[0]!.fusedScore);
    }
  } finally {
    await deps.close();
  }
});

test('adding a store never reorders another store’s hits in a list, and store order does not matter', async (t) => {
  const home = await homeWithStarter();
  const topics = ['apples', 'bicycles', 'carrots', 'dolphins', 'elders', 'falcons'];
  const half = (from: number) =>
    Object.fromEntries(
      topics.slice(from, from + 3).flatMap((topic, i) => [
        [`${topic}.md`, prose(topic, 8 + i * 3 + from * 10, i + from * 7)],
        [`${topic}-notes.md`, `${topic} and apples\n${prose('orchard', 4 + i + from, 40 + i + from)}`],
      ]),
    );
  const left = await storeOf(home, 'Left', [half(0)]);
  const right = await storeOf(home, 'Right', [half(3)]);
  const deps = createSearchDeps(home);
  try {
    for (const query of ['apples orchard', 'dolphins falcons lima', 'bicycles kilo']) {
      for (const mode of ['lexical', 'vector', 'hybrid'] as const) {
        const both = await search({ stores: [left, right], query, mode }, deps);
        const swapped = await search({ stores: [right, left], query, mode }, deps);
        t.deepEqual(swapped.candidates, both.candidates, `${mode} "${query}"`);
        t.is(swapped.block, both.block);
        if (mode === 'hybrid') continue;
        for (const store of [left, right]) {
          const alone = await search({ stores: [store], query, mode }, deps);
          t.deepEqual(
            both.candidates.filter((c) => c.storeId === store.id).map((c) => c.key),
            alone.candidates.map((c) => c.key),
            `${mode} "${query}": ${store.name} keeps its order`,
          );
        }
        if (mode === 'lexical') {
          // One lexical list for both stores, by each hit's share of its store's ceiling.
          const shares = both.candidates.map((c) => c.lexicalMatch!);
          t.true(shares.every((x) => x > 0 && x < 1));
          t.deepEqual(
            shares,
            [...shares].sort((a, b) => b - a),
          );
          if (query === 'apples orchard') t.is(new Set(both.candidates.map((c) => c.storeId)).size, 2);
        }
      }
    }
  } finally {
    await deps.close();
  }
});

test('a store on another embedding model: its words still count, its vector ranks are spread by its share', async (t) => {
  const home = await homeWithStarter();
  const small = await addLocalModel(await smallLexicalModel(), { home, id: 'small-lexical' });
  const big = await storeOf(home, 'Garden', [
    Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`bed-${i}.md`, prose(i % 2 ? 'kiwi' : 'melon', 6 + (i % 5), i)]),
    ),
  ]);
  const tiny = await storeOf(
    home,
    'Kitchen',
    [{ 'soup.md': prose('leek', 6, 3), 'bread.md': prose('rye', 6, 4) }],
    {
      modelId: small.id,
    },
  );
  t.notDeepEqual(big.fingerprint, tiny.fingerprint);
  const deps = createSearchDeps(home);
  try {
    // A question about the big store: the tiny store's vector hits (no shared words) trail.
    const res = await search({ stores: [tiny, big], query: 'kiwi melon' }, deps);
    t.is(res.excerpts.length, 6);
    t.true(res.excerpts.every((e) => e.storeName === 'Garden'));
    const kitchen = res.candidates.filter((c) => c.storeName === 'Kitchen');
    t.true(kitchen.length > 0 && kitchen.every((c) => c.lexicalRank === undefined));
    t.true(
      res.candidates.indexOf(kitchen[0]!) >= 20,
      `first Kitchen hit at ${res.candidates.indexOf(kitchen[0]!)}`,
    );
    // A question in the tiny store's words: the shared lexical list puts its document first.
    const leek = await search({ stores: [tiny, big], query: 'leek' }, deps);
    t.is(file(leek.excerpts[0]!.path), 'soup.md');
    t.is(leek.candidates[0]!.lexicalRank, 1);
  } finally {
    await deps.close();
  }
});

test('one folder source: six excerpts when six documents match, never more than two from one file', async (t) => {
  const home = await homeWithStarter();
  const files: Record<string, string> = {
    // One long document that matches in every chunk, and six short ones that match too.
    'handbook.md': prose('irrigation', 120, 1),
    'unrelated.md': prose('bicycles', 10, 2),
  };
  for (let i = 0; i < 6; i++)
    files[`field-${i}.md`] = `irrigation of field ${i}\n${prose('soil', 3 + i, 10 + i)}`;
  const store = await storeOf(home, 'Farm', [files], { chunkTokens: 120 });
  t.is(store.sources.length, 1);
  t.true(store.sources[0]!.chunks > 10);
  const deps = createSearchDeps(home);
  try {
    for (const mode of ['hybrid', 'lexical', 'vector'] as const) {
      const res = await search({ stores: [store], query: 'irrigation', mode }, deps);
      t.is(res.excerpts.length, 6, mode);
      const perFile = new Map<string, number>();
      for (const e of res.excerpts) perFile.set(file(e.path), (perFile.get(file(e.path)) ?? 0) + 1);
      t.true(
        [...perFile.values()].every((n) => n <= 2),
        JSON.stringify([...perFile]),
      );
      t.is(perFile.get('handbook.md'), 2, `${mode}: the long document fills its two places, no more`);
      t.is(
        res.candidates.filter((c) => file(c.path) === 'handbook.md').length > 2,
        true,
        'more handbook chunks matched than were allowed in',
      );
      t.deepEqual(
        res.excerpts.map((e) => e.marker),
        ['R1', 'R2', 'R3', 'R4', 'R5', 'R6'],
      );
    }
  } finally {
    await deps.close();
  }
});
