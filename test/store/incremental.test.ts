import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { chunkDocument, DEFAULT_CHUNK_PARAMS } from '../../src/chunk/chunk-document.js';
import { countTokens, getTokenizer } from '../../src/chunk/tokenizer.js';
import { extractDocument } from '../../src/extract/extract.js';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { detectFormat } from '../../src/scan/formats.js';
import { snapshotPath } from '../../src/storage/paths.js';
import { addSources, createStore, findStore, updateSources } from '../../src/store/engine.js';
import type { PipelinePorts } from '../../src/store/ports.js';
import { buildLoopingPdf, buildTextPdf } from '../fixtures/pdf.js';
import { countingPorts, homeWithStarter, prose, writeTree } from '../helpers/store-env.js';

// Chunk-level incremental sync with the real pipeline (scanner, extractor, chunker, the generated
// model through node-llama-cpp, real snapshots): an edit embeds the chunks it touched.

const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));
const run = promisify(execFile);

const chunksOf = (text: string) =>
  chunkDocument({ kind: 'lines', text, sourceLines: true }, DEFAULT_CHUNK_PARAMS, getTokenizer());

async function storeWith(t: ExecutionContext, files: Record<string, string>) {
  const home = await homeWithStarter();
  const root = await mkdtemp(join(tmpdir(), 'kortty-inc-'));
  await writeTree(root, files);
  const { id } = await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter' }, home);
  const ports = countingPorts(home);
  await addSources('Docs', [{ kind: 'folder', path: root }], { ports }, home);
  /** Writes `content` to `rel`, updates, and returns what the update embedded. */
  const edit = async (rel: string, content: string | undefined, opts: { retryFailed?: boolean } = {}) => {
    if (content === undefined) await rm(join(root, rel));
    else await writeFile(join(root, rel), content);
    ports.embedded = 0;
    const res = await updateSources('Docs', 'all', { ports, ...opts }, home);
    t.is(res.summary.chunksEmbedded, ports.embedded, 'the summary counts the texts the model got');
    return { embedded: ports.embedded, res };
  };
  return { id, home, root, ports, edit };
}

/** Lines of prose whose chunking ends with a last chunk that has room for `extra` (or not). */
function proseWithLastChunk(extra: string, full: boolean): string {
  for (let n = 300; n < 1500; n++) {
    const text = prose('otters', n, 3);
    const chunks = chunksOf(text);
    const last = chunks[chunks.length - 1]!;
    if (last.tokens + countTokens(extra) > DEFAULT_CHUNK_PARAMS.chunkTokens === full) return text;
  }
  throw new Error('no fixture found');
}

test('an append embeds one chunk; two when the last chunk was full', async (t) => {
  const extra = prose('appended', 1, 77);
  for (const full of [false, true]) {
    const text = proseWithLastChunk(extra, full);
    const { edit, home } = await storeWith(t, { 'log.md': text });
    const before = chunksOf(text).length;
    const { embedded, res } = await edit('log.md', text + extra);
    t.is(embedded, full ? 2 : 1, `last chunk ${full ? 'full' : 'with room'}: ${embedded} embedded`);
    const after = (await findStore('Docs', home)).sources[0]!;
    t.is(res.summary.chunksReused, after.chunks - embedded);
    t.is(after.chunks, before + (full ? 1 : 0));
    t.is(after.lastChunksEmbedded, embedded);
    t.is(after.lastChunksReused, after.chunks - embedded);
  }
});

test('a one-line insertion or deletion in the middle of a 50-chunk file embeds at most 3', async (t) => {
  const text = prose('herons', 1500, 11);
  t.true(chunksOf(text).length >= 50, `fixture has ${chunksOf(text).length} chunks`);
  const { edit } = await storeWith(t, { 'big.md': text });
  const lines = text.split('\n');
  for (const at of [700, 750, 820]) {
    const inserted = [...lines];
    inserted.splice(at, 0, 'A new line about herons and their nests, inserted here.');
    const ins = await edit('big.md', inserted.join('\n'));
    t.true(ins.embedded >= 1 && ins.embedded <= 3, `insertion at line ${at}: ${ins.embedded} embedded`);
    // Back to the original: the chunks around the edit come back (the snapshot kept only the new ones).
    const back = await edit('big.md', text);
    t.true(back.embedded <= 3, `restoring: ${back.embedded} embedded`);
    const deleted = [...lines];
    deleted.splice(at, 1);
    const d = await edit('big.md', deleted.join('\n'));
    t.true(d.embedded >= 1 && d.embedded <= 3, `deletion at line ${at}: ${d.embedded} embedded`);
    await edit('big.md', text);
  }
});

test('moving a paragraph embeds only the chunks around its old and new place', async (t) => {
  const paragraphs = Array.from({ length: 120 }, (_, i) => prose(`topic${i}`, 3 + (i % 5), i + 1).trim());
  const text = `${paragraphs.join('\n\n')}\n`;
  const chunks = chunksOf(text).length;
  const { edit } = await storeWith(t, { 'notes.md': text });
  const moved = [...paragraphs];
  const [p] = moved.splice(20, 1);
  moved.splice(90, 0, p!);
  const { embedded } = await edit('notes.md', `${moved.join('\n\n')}\n`);
  t.true(embedded >= 1 && embedded <= 6, `${embedded} of ${chunks} chunks embedded`);
});

test('after a series of edits the snapshot is byte-identical to a from-scratch index', async (t) => {
  const files = {
    'a.md': prose('apples', 400, 1),
    'b.txt': prose('bicycles', 250, 2),
    'sub/c.md': `${Array.from({ length: 40 }, (_, i) => prose(`c${i}`, 4, i).trim()).join('\n\n')}\n`,
  };
  const { edit, home, root, id } = await storeWith(t, files);
  const a = files['a.md'].split('\n');
  const steps: [string, string | undefined][] = [
    ['a.md', `${files['a.md']}${prose('appended', 3, 5)}`],
    ['a.md', [...a.slice(0, 200), 'inserted in the middle of a', ...a.slice(200)].join('\n')],
    [
      'b.txt',
      files['b.txt'].split('\n').slice(0, 120).concat(files['b.txt'].split('\n').slice(121)).join('\n'),
    ],
    ['sub/c.md', files['sub/c.md'].replace(/\n\n/, '\n\nA new paragraph near the top.\n\n')],
    ['copy-of-b.txt', files['b.txt']],
    ['b.txt', undefined],
  ];
  let total = 0;
  for (const [rel, content] of steps) total += (await edit(rel, content)).embedded;
  // The copy of b.txt made after b.txt was indexed needs no embedding at all.
  t.true(total > 0);
  const incremental = await readFile(snapshotPath(id, home));

  const fresh = await homeWithStarter();
  const freshStore = await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter' }, fresh);
  const freshPorts = countingPorts(fresh);
  await addSources('Docs', [{ kind: 'folder', path: root }], { ports: freshPorts }, fresh);
  const scratch = await readFile(snapshotPath(freshStore.id, fresh));
  t.true(incremental.equals(scratch), 'identical snapshot bytes');
  t.true(total < freshPorts.embedded, `edits embedded ${total}, a fresh index ${freshPorts.embedded}`);
});

test('a copied file reuses every vector: chunks keep their vector wherever they now sit', async (t) => {
  const text = prose('kestrels', 600, 4);
  const { edit, home, id } = await storeWith(t, { 'one.md': text });
  const { embedded, res } = await edit('two.md', text);
  t.is(embedded, 0);
  t.is(res.summary.indexed, 1);
  const snap = await openSnapshot(snapshotPath(id, home));
  const [one, two] = snap!.data.docs;
  snap!.close();
  t.is(two!.chunks.length, one!.chunks.length);
  for (const [i, c] of two!.chunks.entries()) t.deepEqual(c.vector, one!.chunks[i]!.vector);
});

/** The real ports with the PDF timeout `limits` holds at each call, counting extractions per file name. */
function pdfPorts(
  home: string,
  extracted: Map<string, number>,
  limits: { pdfTimeoutMs?: number },
): PipelinePorts & { embedded: number } {
  const base = countingPorts(home);
  return Object.assign(base, {
    async extract(path: string, _format: string, signal?: AbortSignal, expectSha256?: string) {
      extracted.set(basename(path), (extracted.get(basename(path)) ?? 0) + 1);
      return extractDocument(path, detectFormat(basename(path))?.extract ?? 'text', {
        signal,
        expectSha256,
        pdfTimeoutMs: limits.pdfTimeoutMs,
      });
    },
  });
}

test('a file that failed is not parsed again while unchanged; retryFailed parses it again', async (t) => {
  const home = await homeWithStarter();
  const root = await mkdtemp(join(tmpdir(), 'kortty-fail-'));
  await writeTree(root, { 'notes.md': prose('notes', 30, 1) });
  await writeFile(join(root, 'hang.pdf'), buildLoopingPdf());
  await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter' }, home);
  const extracted = new Map<string, number>();
  // A short limit for the PDF that never ends; the readable one later gets the default (60 s), so a
  // loaded machine cannot make it time out.
  const limits: { pdfTimeoutMs?: number } = { pdfTimeoutMs: 1500 };
  const ports = pdfPorts(home, extracted, limits);

  const first = await addSources('Docs', [{ kind: 'folder', path: root }], { ports }, home);
  t.is(first.summary.indexed, 1);
  t.is(extracted.get('hang.pdf'), 1);
  let src = (await findStore('Docs', home)).sources[0]!;
  const record = src.failed?.[join(root, 'hang.pdf')];
  t.is(record?.reason, 'pdf-timeout');
  t.regex(record?.explanation ?? '', /exceeded 1500 ms/);

  // Unchanged: the review shows it skipped with the date, and the parser is not started.
  let shown = '';
  const second = await updateSources(
    'Docs',
    'all',
    {
      ports,
      confirm: async (reviews) => {
        const row = [...reviews.values()][0]!.rows.find((r) => r.relPath === 'hang.pdf')!;
        shown = `${row.status} ${row.reason}: ${row.explanation}`;
        return true;
      },
    },
    home,
  );
  t.is(extracted.get('hang.pdf'), 1, 'not parsed again');
  t.regex(shown, /^skipped pdf-timeout: unchanged since it failed on \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  // Still a problem the user should see; "skipped" counts only what the rules intend.
  t.is(second.summary.problems, 1);
  t.is(second.summary.skipped, 0);
  src = (await findStore('Docs', home)).sources[0]!;
  t.deepEqual(src.failed?.[join(root, 'hang.pdf')], record, 'the record (and its date) is kept');
  t.true(
    src.problemList.some((p) => p.path.endsWith('hang.pdf') && /unchanged since/.test(p.explanation ?? '')),
  );

  // Update now with retry: parsed again, fails again, dated anew.
  const retried = await updateSources('Docs', 'all', { ports, retryFailed: true }, home);
  t.is(extracted.get('hang.pdf'), 2, 'parsed again');
  t.false(retried.wroteSnapshot, 'learning of a failure alone rewrites no snapshot');
  src = (await findStore('Docs', home)).sources[0]!;
  t.true(src.failed![join(root, 'hang.pdf')]!.failedAt >= record!.failedAt);

  // Changed content is always tried: it now parses and the record is gone.
  await writeFile(join(root, 'hang.pdf'), buildTextPdf([['A readable page about herons.']]));
  limits.pdfTimeoutMs = undefined;
  const fixed = await updateSources('Docs', 'all', { ports }, home);
  t.is(extracted.get('hang.pdf'), 3);
  t.is(fixed.summary.indexed, 1);
  src = (await findStore('Docs', home)).sources[0]!;
  t.is(src.failed, undefined);
});

test('CLI: source update --retry-failed extracts a remembered failure again', async (t) => {
  const home = await homeWithStarter();
  const root = await mkdtemp(join(tmpdir(), 'kortty-fail-cli-'));
  await writeTree(root, { 'notes.md': prose('notes', 30, 1) });
  // A malformed PDF fails fast (pdf-invalid) with the default timeouts the CLI uses.
  await writeFile(join(root, 'broken.pdf'), Buffer.from('%PDF-1.4\nnot really a pdf\n'));
  const env = { ...process.env, KORTTY_HOME: home };
  const cli = (...args: string[]) => run(process.execPath, [BIN, ...args], { env });
  await cli('store', 'create', 'Docs', '--model', 'kortty-lexical-starter');
  await cli('source', 'add', 'Docs', root, '--yes');
  const failedAt = async () =>
    (await findStore('Docs', home)).sources[0]!.failed?.[join(root, 'broken.pdf')]?.failedAt;
  const first = await failedAt();
  t.truthy(first);

  const plain = await cli('source', 'update', 'Docs', '--yes');
  t.regex(plain.stderr, /skipped broken\.pdf: unchanged since it failed on/);
  t.is(await failedAt(), first);

  const retry = await cli('source', 'update', 'Docs', '--retry-failed', '--yes');
  t.notRegex(retry.stderr, /unchanged since it failed/);
  t.regex(retry.stdout, /1 problem\(s\)/);
  t.not(await failedAt(), first, 'extracted again and dated anew');

  const help = await cli('source', 'update', '--help');
  t.regex(help.stdout, /--retry-failed\s+extract again the files whose extraction failed before/);

  const list = await cli('source', 'list', 'Docs');
  t.regex(list.stdout, /EMBEDDED\/REUSED/);
});
