import { existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { catalogEntry } from '../../src/embed/catalog.js';
import { type InstallProgress, installModel } from '../../src/embed/installer.js';
import { getInstalled, partialDownloadDir, verifyInstalled } from '../../src/embed/model-registry.js';
import type { KorttyError } from '../../src/errors.js';
import { modelsDir } from '../../src/storage/paths.js';
import { quietPort } from '../helpers/ports.js';
import { ggufBytes, serveFile, sha256, tempHome } from './helpers.js';

test.before(async () => {
  process.env.KORTTY_HOME = await tempHome('install');
});

const MiB = 1 << 20;

async function flipByte(path: string, at: number): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, at);
    b[0] = b[0]! ^ 0x01;
    await fh.write(b, 0, 1, at);
  } finally {
    await fh.close();
  }
}

test('install from a loopback server: progress, sha256 recorded, verify passes, a modified file is refused', async (t) => {
  const home = await tempHome('basic');
  const bytes = ggufBytes(3 * MiB + 123);
  const server = await serveFile(bytes, '/repo/resolve/main/test-embed.gguf');
  t.teardown(() => server.close());
  const events: InstallProgress[] = [];

  const res = await installModel('test-embed', { url: server.url, home, onProgress: (p) => events.push(p) });
  const dest = join(modelsDir(home), 'test-embed.gguf');
  t.is(res.status, 'installed');
  t.false(res.resumed);
  t.is(res.path, dest);
  t.true((await readFile(dest)).equals(bytes));
  t.is(res.record.sha256, sha256(bytes));
  t.is(res.record.size, bytes.length);
  t.is(res.record.source, 'url');
  t.is(res.record.url, server.url);
  t.deepEqual(await getInstalled('test-embed', home), res.record);
  t.false(existsSync(partialDownloadDir('test-embed', home)));

  const downloads = events.filter((e) => e.phase === 'download');
  const verifies = events.filter((e) => e.phase === 'verify');
  t.true(downloads.length >= 2);
  t.true(downloads.every((e, i) => i === 0 || e.bytes >= downloads[i - 1]!.bytes));
  t.deepEqual(downloads.at(-1), {
    phase: 'download',
    bytes: bytes.length,
    total: bytes.length,
    percent: 100,
  });
  t.deepEqual(verifies.at(-1), { phase: 'verify', bytes: bytes.length, total: bytes.length, percent: 100 });
  t.true(events.findIndex((e) => e.phase === 'verify') > events.findLastIndex((e) => e.phase === 'download'));

  t.false((await verifyInstalled('test-embed', { home })).rehashed);
  const served = server.requests.length;
  const again = await installModel('test-embed', { url: server.url, home });
  t.is(again.status, 'already-installed');
  t.is(server.requests.length, served, 'an installed model is not downloaded again');

  await flipByte(dest, 2 * MiB);
  const changed = await t.throwsAsync<KorttyError>(verifyInstalled('test-embed', { home }));
  t.is(changed?.code, 'MODEL_CHANGED');
  const reinstall = await t.throwsAsync<KorttyError>(installModel('test-embed', { url: server.url, home }));
  t.is(reinstall?.code, 'MODEL_EXISTS', 'a changed file is not replaced silently');
  t.is(server.requests.length, served);
});

test('a cancelled download resumes: the second run sends Range requests and fetches less than the file', async (t) => {
  const home = await tempHome('resume');
  // ipull marks 5 MiB chunks complete over 3 streams, and a chunk in flight at the cancel is fetched
  // again: at half of 64 MiB at least 17 MiB are in complete chunks, whatever the streams' pace.
  const size = 64 * MiB;
  const bytes = ggufBytes(size);
  // The server holds the last 5 % until released, so the cancel at half-way always lands while
  // the download is in flight, however fast the machine is.
  const server = await serveFile(bytes, '/big.gguf', { sliceBytes: 256 * 1024, holdAfterBytes: 0.95 * size });
  t.teardown(() => server.close());
  const ac = new AbortController();
  let abortedAt = 0;
  const first = await t.throwsAsync<KorttyError>(
    installModel('big', {
      url: server.url,
      home,
      signal: ac.signal,
      onProgress: (p) => {
        if (p.phase === 'download' && p.bytes > 0.5 * size && !ac.signal.aborted) {
          abortedAt = p.bytes;
          ac.abort();
        }
      },
    }),
  );
  t.is(first?.code, 'DOWNLOAD_CANCELLED');
  t.regex(first?.message ?? '', /resume/);
  t.is(await getInstalled('big', home), undefined);
  t.false(existsSync(join(modelsDir(home), 'big.gguf')));
  t.deepEqual(await readdir(partialDownloadDir('big', home)), ['big.gguf.ipull']);

  server.release();
  const firstRunSent = server.bytesSent();
  const firstRunRequests = server.requests.length;
  const res = await installModel('big', { url: server.url, home });
  t.is(res.status, 'installed');
  t.true(res.resumed);
  t.is(res.record.sha256, sha256(bytes));
  t.true((await readFile(res.path)).equals(bytes));

  const second = server.requests.slice(firstRunRequests);
  const secondSent = second.reduce((n, r) => n + r.sent, 0);
  const resumedRanges = second.filter((r) => r.range && !r.range.startsWith('bytes=0-') && r.sent > 0);
  t.log(
    `cancelled at ${(abortedAt / MiB).toFixed(1)} MiB; served ${(firstRunSent / MiB).toFixed(1)} + ${(secondSent / MiB).toFixed(1)} MiB for a ${size / MiB} MiB file`,
  );
  t.true(resumedRanges.length > 0, 'the resumed run asks for byte ranges past the start');
  // The probe tells ipull the size: no run asks for the whole file just to learn it.
  t.deepEqual(
    server.requests.filter((r) => !r.range),
    [],
    'every request names a byte range',
  );
  t.true(secondSent < size, 'the resumed run fetches less than the whole file');
  t.true(server.bytesSent() < 2 * size, 'cancel + resume costs less than two downloads');
});

test('an HTTP error answers DOWNLOAD_FAILED with the URL and the status, at once', async (t) => {
  const home = await tempHome('http-error');
  for (const status of [500, 404, 403]) {
    const server = await serveFile(Buffer.alloc(0), '/m.gguf', { status });
    const started = Date.now();
    const err = await t.throwsAsync<KorttyError>(installModel('m', { url: server.url, home }));
    await server.close();
    t.is(err?.code, 'DOWNLOAD_FAILED', String(status));
    t.is(err?.details.url, server.url);
    t.is(err?.details.status, status);
    t.true(err?.message.includes(server.url) && err.message.includes(String(status)), err?.message);
    t.true(Date.now() - started < 5000, 'no minutes of retries before the error');
  }
  t.is(await getInstalled('m', home), undefined);
  t.false(existsSync(join(modelsDir(home), 'm.gguf')));
});

test('an unreachable server answers DOWNLOAD_FAILED naming the socket error', async (t) => {
  const home = await tempHome('refused');
  const url = `http://127.0.0.1:${await quietPort()}/m.gguf`;
  const err = await t.throwsAsync<KorttyError>(installModel('m', { url, home }));
  t.is(err?.code, 'DOWNLOAD_FAILED');
  t.regex(err?.message ?? '', /ECONNREFUSED/);
});

test('a URL that serves something other than GGUF is refused before downloading it', async (t) => {
  const home = await tempHome('not-gguf');
  const html = Buffer.from(`<!doctype html><title>Not found</title>${'x'.repeat(5000)}`);
  const server = await serveFile(html, '/m.gguf');
  t.teardown(() => server.close());
  const err = await t.throwsAsync<KorttyError>(installModel('m', { url: server.url, home }));
  t.is(err?.code, 'MODEL_INVALID');
  t.true(err?.message.includes(server.url));
  t.is(server.requests.length, 1, 'only the probe');
});

test('a download whose sha256 differs from the expected one is discarded', async (t) => {
  const home = await tempHome('sha');
  const bytes = ggufBytes(1 * MiB);
  const server = await serveFile(bytes, '/m.gguf');
  t.teardown(() => server.close());
  const want = sha256(Buffer.from('something else'));
  const err = await t.throwsAsync<KorttyError>(installModel('m', { url: server.url, home, sha256: want }));
  t.is(err?.code, 'DOWNLOAD_HASH_MISMATCH');
  t.is(err?.details.want, want);
  t.is(err?.details.got, sha256(bytes));
  t.is(await getInstalled('m', home), undefined);
  t.false(existsSync(join(modelsDir(home), 'm.gguf')));
  t.false(existsSync(join(partialDownloadDir('m', home), 'm.gguf')));
  // With the right digest the same download is accepted.
  const ok = await installModel('m', { url: server.url, home, sha256: sha256(bytes) });
  t.is(ok.record.sha256, sha256(bytes));
});

test('a mirror for a catalog model must serve the pinned file: a different size is refused after the probe', async (t) => {
  const home = await tempHome('mirror');
  const server = await serveFile(ggufBytes(1 * MiB), '/Qwen3-Embedding-0.6B-Q8_0.gguf');
  t.teardown(() => server.close());
  const err = await t.throwsAsync<KorttyError>(
    installModel('qwen3-embedding-0.6b-q8_0', { url: server.url, home }),
  );
  t.is(err?.code, 'DOWNLOAD_FAILED');
  t.true(err?.message.includes(String(catalogEntry('qwen3-embedding-0.6b-q8_0')!.sizeBytes)));
  t.is(server.requests.length, 1);
});

test('an unrecorded different file at the destination is never overwritten; a matching one is adopted', async (t) => {
  const home = await tempHome('exists');
  const bytes = ggufBytes(256 * 1024);
  const server = await serveFile(bytes, '/m.gguf');
  t.teardown(() => server.close());
  await mkdir(modelsDir(home), { recursive: true });
  const dest = join(modelsDir(home), 'm.gguf');
  const mine = Buffer.from('my own notes, not a model');
  await writeFile(dest, mine);
  const err = await t.throwsAsync<KorttyError>(installModel('m', { url: server.url, home }));
  t.is(err?.code, 'MODEL_EXISTS');
  t.true(err?.message.includes(dest));
  t.deepEqual(await readFile(dest), mine);
  t.is(server.requests.length, 0, 'refused before downloading');

  await writeFile(dest, bytes);
  const adopted = await installModel('m', { url: server.url, home, sha256: sha256(bytes) });
  t.is(adopted.status, 'adopted');
  t.is(server.requests.length, 0);
  t.false((await verifyInstalled('m', { home })).rehashed);
});

test('a second install of the same model while one runs is refused with MODEL_BUSY', async (t) => {
  const home = await tempHome('busy');
  const bytes = ggufBytes(8 * MiB);
  // Held after the first slice: the first install is still downloading when the second comes.
  const server = await serveFile(bytes, '/m.gguf', { sliceBytes: 64 * 1024, holdAfterBytes: 64 * 1024 });
  t.teardown(() => server.close());
  const ac = new AbortController();
  let started!: () => void;
  const downloading = new Promise<void>((resolve) => {
    started = resolve;
  });
  const first = installModel('m', { url: server.url, home, signal: ac.signal, onProgress: () => started() });
  await downloading;
  const err = await t.throwsAsync<KorttyError>(installModel('m', { url: server.url, home }));
  t.is(err?.code, 'MODEL_BUSY');
  t.is(err?.details.pid, process.pid);
  ac.abort();
  t.is((await t.throwsAsync<KorttyError>(first))?.code, 'DOWNLOAD_CANCELLED');
  server.release();
  // The lock is released: the next install proceeds (and resumes).
  t.is((await installModel('m', { url: server.url, home })).record.sha256, sha256(bytes));
});

test('the lexical starter is generated, not downloaded', async (t) => {
  const home = await tempHome('starter');
  const refused = await t.throwsAsync<KorttyError>(installModel('kortty-lexical-starter', { home }));
  t.is(refused?.code, 'INVALID_ARGUMENT');
  const bytes = ggufBytes(64 * 1024);
  const res = await installModel('kortty-lexical-starter', {
    home,
    generate: async (path) => writeFile(path, bytes),
  });
  t.is(res.record.source, 'generated');
  t.is(res.record.sha256, sha256(bytes));
  t.is(res.path, join(modelsDir(home), 'kortty-lexical-starter-384.gguf'));
});

test('a cancel during sha256 verification keeps the complete download; the next run only verifies it', async (t) => {
  const home = await tempHome('verify-cancel');
  const bytes = ggufBytes(8 * MiB);
  const server = await serveFile(bytes, '/m.gguf');
  t.teardown(() => server.close());
  const ac = new AbortController();
  const err = await t.throwsAsync<KorttyError>(
    installModel('m', {
      url: server.url,
      home,
      sha256: sha256(bytes),
      signal: ac.signal,
      onProgress: (p) => {
        if (p.phase === 'verify') ac.abort();
      },
    }),
  );
  t.is(err?.code, 'DOWNLOAD_CANCELLED');
  t.is(await getInstalled('m', home), undefined);
  t.deepEqual(await readdir(partialDownloadDir('m', home)), ['m.gguf']);
  const requests = server.requests.length;
  const res = await installModel('m', { url: server.url, home, sha256: sha256(bytes) });
  t.is(res.status, 'installed');
  t.true(res.resumed);
  t.is(server.requests.length, requests, 'nothing downloaded again');
  t.true((await readFile(res.path)).equals(bytes));
});
