import test from 'ava';
import {
  CATALOG,
  catalogEntry,
  defaultModelId,
  GiB,
  LEXICAL_STARTER_ID,
  offeredModels,
  type Pooling,
} from '../../src/embed/catalog.js';
import { STARTER_DEFAULTS } from '../../src/embed/generate-model.js';
import { planInstall, toDownloadUrl } from '../../src/embed/installer.js';
import { starterFileName } from '../../src/embed/starter-model.js';
import type { KorttyError } from '../../src/errors.js';
import { tempHome } from './helpers.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as KorttyError).code;
  }
  return undefined;
}

test.before(async () => {
  process.env.KORTTY_HOME = await tempHome('catalog');
});

const Q06 = 'qwen3-embedding-0.6b-q8_0';
const Q4B = 'qwen3-embedding-4b-q4_k_m';
const Q8B = 'qwen3-embedding-8b-q4_k_m';
const BGE = 'bge-m3-q8_0';
const NOMIC = 'nomic-embed-text-v1.5-q8_0';
const ALWAYS = [Q06, BGE, NOMIC, LEXICAL_STARTER_ID];

// Memory rule: 4B from 16 GiB, 8B from 24 GiB. Reported totals slightly under the installed RAM
// (Linux MemTotal of a 16 GiB machine) still count; clearly smaller machines do not.
const MEMORY_TABLE: [string, number, string[]][] = [
  ['4 GiB', 4 * GiB, ALWAYS],
  ['8 GiB', 8 * GiB, ALWAYS],
  ['14 GiB', 14 * GiB, ALWAYS],
  ['Linux MemTotal of 16 GiB (15.5 GiB)', 15.5 * GiB, [...ALWAYS, Q4B]],
  ['exactly 16 GiB', 16 * GiB, [...ALWAYS, Q4B]],
  ['20 GiB', 20 * GiB, [...ALWAYS, Q4B]],
  ['22 GiB', 22 * GiB, [...ALWAYS, Q4B]],
  ['Linux MemTotal of 24 GiB (23.4 GiB)', 23.4 * GiB, [...ALWAYS, Q4B, Q8B]],
  ['exactly 24 GiB', 24 * GiB, [...ALWAYS, Q4B, Q8B]],
  ['64 GiB', 64 * GiB, [...ALWAYS, Q4B, Q8B]],
];

for (const [label, mem, expected] of MEMORY_TABLE) {
  test(`memory rule: ${label}`, (t) => {
    t.deepEqual(
      offeredModels(mem)
        .map((m) => m.id)
        .sort(),
      [...expected].sort(),
    );
  });
}

test('the preselected model is Qwen3-Embedding 0.6B Q8_0 and is offered on every machine', (t) => {
  t.is(defaultModelId, Q06);
  t.is(catalogEntry(defaultModelId)?.label.startsWith('Qwen3-Embedding 0.6B Q8_0'), true);
  t.true(offeredModels(1 * GiB).some((m) => m.id === defaultModelId));
});

test('catalog: the five spec models plus the lexical starter, with unique ids and file names', (t) => {
  t.deepEqual(
    CATALOG.map((m) => m.id),
    [Q06, Q4B, Q8B, BGE, NOMIC, LEXICAL_STARTER_ID],
  );
  t.is(new Set(CATALOG.map((m) => m.fileName)).size, CATALOG.length);
  for (const m of CATALOG) t.regex(m.fileName, /^[A-Za-z0-9][A-Za-z0-9._-]*\.gguf$/, m.id);
});

test('catalog: dimensions, pooling and prompt formats follow the model cards', (t) => {
  const spec: Record<string, [number, Pooling, string, string]> = {
    [Q06]: [1024, 'last', '', 'Instruct: '],
    [Q4B]: [2560, 'last', '', 'Instruct: '],
    [Q8B]: [4096, 'last', '', 'Instruct: '],
    [BGE]: [1024, 'cls', '', ''],
    [NOMIC]: [768, 'mean', 'search_document: ', 'search_query: '],
  };
  for (const [id, [dim, pooling, doc, queryStart]] of Object.entries(spec)) {
    const m = catalogEntry(id)!;
    t.is(m.dimension, dim, id);
    t.is(m.pooling, pooling, id);
    t.is(m.documentPrefix, doc, id);
    t.true(m.queryPrefix.startsWith(queryStart), id);
    if (queryStart === '') t.is(m.queryPrefix, '', id);
  }
  // Qwen3-Embedding: an instruction before queries only, ending in the card's "\nQuery:".
  t.regex(catalogEntry(Q06)!.queryPrefix, /^Instruct: [^\n]+\nQuery:$/);
});

test('catalog: downloadable entries are pinned (revision, exact size, sha256) and their URI and URL agree', (t) => {
  for (const m of CATALOG.filter((x) => x.kind === 'download')) {
    t.regex(m.revision ?? '', /^[0-9a-f]{40}$/, m.id);
    t.regex(m.sha256 ?? '', /^[0-9a-f]{64}$/, m.id);
    t.true(m.sizeExact && Number.isSafeInteger(m.sizeBytes) && m.sizeBytes > 100_000_000, m.id);
    t.is(m.uri, `hf:${m.repo}/${m.fileName}#${m.revision}`);
    t.is(m.url, `https://huggingface.co/${m.repo}/resolve/${m.revision}/${m.fileName}`);
    // The installer resolves the hf: URI offline to the same URL node-llama-cpp would fetch.
    t.is(toDownloadUrl(m.uri!), m.url!);
    t.true(m.contextLength >= 1024, m.id);
    t.true(m.languages.length > 0 && m.note.length > 0 && m.license.length > 0, m.id);
  }
  // Sizes grow with the parameter count.
  t.true(catalogEntry(NOMIC)!.sizeBytes < catalogEntry(Q06)!.sizeBytes);
  t.true(catalogEntry(Q06)!.sizeBytes < catalogEntry(Q4B)!.sizeBytes);
  t.true(catalogEntry(Q4B)!.sizeBytes < catalogEntry(Q8B)!.sizeBytes);
});

test('catalog: the lexical starter is generated offline, says it matches words, and agrees with the generator', (t) => {
  const s = catalogEntry(LEXICAL_STARTER_ID)!;
  t.is(s.kind, 'generated');
  t.is(s.url, undefined);
  t.is(s.sha256, undefined);
  t.regex(s.label, /matches words, not meaning/);
  t.is(s.dimension, STARTER_DEFAULTS.dimension);
  t.is(s.contextLength, STARTER_DEFAULTS.contextLength);
  t.is(s.pooling, 'mean');
  t.is(s.fileName, starterFileName(STARTER_DEFAULTS.dimension));
});

test('install plan: catalog ids keep their pins even with a mirror URL; other ids need a URL', (t) => {
  const mirror = planInstall(Q06, { url: 'https://mirror.example/q.gguf' });
  t.is(mirror.url, 'https://mirror.example/q.gguf');
  t.is(mirror.expectedSha256, catalogEntry(Q06)!.sha256);
  t.is(mirror.expectedSize, catalogEntry(Q06)!.sizeBytes);
  t.is(mirror.fileName, catalogEntry(Q06)!.fileName);

  const custom = planInstall('my-model', { url: 'http://127.0.0.1:1/dir/My%20Model.Q8_0.gguf' });
  t.is(custom.source, 'url');
  t.is(custom.expectedSha256, undefined);
  t.is(custom.fileName, 'my-model.gguf'); // "My Model.Q8_0.gguf" has a space: replaced by the id
  t.is(planInstall('x1', { url: 'https://h.example/a/b/model-q4.gguf' }).fileName, 'model-q4.gguf');

  t.is(
    codeOf(() => planInstall('not-in-catalog')),
    'INVALID_ARGUMENT',
  );
  t.is(
    codeOf(() => planInstall('Bad Id', { url: 'https://h.example/m.gguf' })),
    'INVALID_ARGUMENT',
  );
  t.is(
    codeOf(() => planInstall('local:x', { url: 'https://h.example/m.gguf' })),
    'INVALID_ARGUMENT',
  );
  t.is(
    codeOf(() => planInstall('m', { url: 'ftp://h.example/m.gguf' })),
    'INVALID_ARGUMENT',
  );
  t.is(
    codeOf(() => planInstall('m', { url: 'https://h.example/m.gguf', sha256: 'abc' })),
    'INVALID_ARGUMENT',
  );
});
