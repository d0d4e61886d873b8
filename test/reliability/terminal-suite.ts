import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import xterm from '@xterm/headless';
import { setRole, upsertProfile } from '../../src/ai/profiles.js';
import { loadProfiles, saveProfiles } from '../../src/ai/profiles-file.js';
import { terminalIO } from '../../src/cli/io.js';
import { profilesPath } from '../../src/storage/paths.js';
import { escapeForJson, sanitizeTerminal } from '../../src/util/terminal-text.js';
import { createFakeOpenAI } from '../helpers/fake-openai.js';
import { check, createRow, rng, type SuiteRow, scratchDirSync } from './common.js';

// Hostile model answers against the terminal: fuzzed mixes of escape sequences (OSC 52 clipboard,
// OSC 0/2 title, OSC 8 links, CSI clear/cursor/SGR, DCS, 8-bit C1, bidi overrides, BEL, CR) cut at
// random points, through the CLI's output stream in-process and through the real `kortty-rag ask`
// process streaming from an OpenAI-compatible backend. Every output is checked byte by byte and
// rendered by @xterm/headless: no title change, no clipboard write, no clear, no raw control.

const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));
const ESC = '\x1b';
const PIECES = [
  `${ESC}]52;c;cm0gLXJmIH4=\x07`,
  `${ESC}]52;p;?\x07`,
  `${ESC}]0;title\x07`,
  `${ESC}]2;title${ESC}\\`,
  `${ESC}]8;;https://example.invalid/${ESC}\\link${ESC}]8;;${ESC}\\`,
  `${ESC}[2J`,
  `${ESC}[3J${ESC}[H`,
  `${ESC}[31;1m`,
  `${ESC}[0m`,
  `${ESC}[?1049h`,
  `${ESC}P+q544e${ESC}\\`,
  `${ESC}c`,
  '\u009b2J',
  '\u009d0;c1-title\u009c',
  '\u202Eevil\u202C',
  '\u2066x\u2069',
  '\u200B',
  '\x07',
  '\r',
  '\r\n',
  '\n',
  '\t',
  'plain words ',
  '日本語 ',
  '👨\u200D👩\u200D👧 ',
];
const DANGEROUS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B\u202A-\u202E\u2066-\u2069]/u;

function hostileAnswer(next: () => number): string {
  const n = 1 + Math.floor(next() * 24);
  let s = '';
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(next() * PIECES.length)]!;
  return s;
}

function cuts(text: string, next: () => number): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    const len = 1 + Math.floor(next() * 6);
    out.push(text.slice(at, at + len));
    at += len;
  }
  return out;
}

/** What a terminal did with the bytes, after a marker line. */
async function render(bytes: Buffer): Promise<{ titles: string[]; clipboard: number; kept: boolean }> {
  const term = new xterm.Terminal({ cols: 200, rows: 400, allowProposedApi: true, convertEol: true });
  const titles: string[] = [];
  let clipboard = 0;
  term.onTitleChange((t) => titles.push(t));
  term.parser.registerOscHandler(52, () => {
    clipboard++;
    return true;
  });
  const write = (d: string | Uint8Array) => new Promise<void>((r) => term.write(d, r));
  await write('MARKER-BEFORE\n');
  await write(new Uint8Array(bytes));
  const b = term.buffer.active;
  let text = '';
  for (let y = 0; y < b.length; y++) text += `${b.getLine(y)?.translateToString(true) ?? ''}\n`;
  term.dispose();
  return { titles, clipboard, kept: text.includes('MARKER-BEFORE') };
}

async function assertInert(bytes: Buffer) {
  check(
    !DANGEROUS.test(bytes.toString('utf8')),
    () => `raw control in ${JSON.stringify(bytes.toString('utf8'))}`,
  );
  const e = await render(bytes);
  check(e.titles.length === 0, `title changed to ${JSON.stringify(e.titles)}`);
  check(e.clipboard === 0, 'clipboard written');
  check(e.kept, 'screen cleared');
}

export async function runTerminalSuite(opts: {
  streams: number;
  processes: number;
  json: number;
  seed?: number;
  log?: (line: string) => void;
}): Promise<SuiteRow[]> {
  const seed = opts.seed ?? 0x7e7;
  const rows: SuiteRow[] = [];

  // 1. The CLI's stdout stream (what `ask` writes each token to), in-process.
  const stream = createRow('terminal: fuzzed answers through the CLI output stream');
  const next = rng(seed);
  for (let i = 0; i < opts.streams; i++) {
    const answer = hostileAnswer(next);
    const chunks = cuts(answer, next);
    await stream.trial(async () => {
      const parts: Buffer[] = [];
      const sink = new Writable({
        write(c: Buffer, _e, cb) {
          parts.push(Buffer.from(c));
          cb();
        },
      });
      const tio = terminalIO(
        { stdout: sink, stderr: sink, stdin: process.stdin, env: {}, cwd: '/' },
        { json: false },
      );
      for (const c of chunks) tio.stdout.write(c);
      tio.flush();
      const bytes = Buffer.concat(parts);
      check(
        bytes.toString('utf8') === sanitizeTerminal(answer),
        'the stream form differs from the whole-text form',
      );
      await assertInert(bytes);
    }, `seed ${seed} answer ${i}`);
  }
  rows.push(stream);

  // 2. The real `kortty-rag ask` process, answers streamed by the backend in random byte cuts.
  const proc = createRow('terminal: fuzzed answers streamed by a backend to `kortty-rag ask`');
  const home = scratchDirSync('kortty-rel-term-');
  let answer = '';
  const fake = await createFakeOpenAI({
    reply: () => ({ content: answer, tokens: cuts(answer, next) }),
    split: 5,
  });
  try {
    let cfg = await loadProfiles(profilesPath(home));
    cfg = upsertProfile(
      cfg,
      {
        name: 'fuzz',
        backend: 'openai',
        baseUrl: fake.url,
        model: 'fake',
        contextWindow: 8192,
        family: 'generic',
        requireCitations: false,
        retrievalMode: 'before',
      },
      profilesPath(home),
    );
    await saveProfiles(setRole(cfg, 'text', 'fuzz', profilesPath(home)), profilesPath(home));
    for (let i = 0; i < opts.processes; i++) {
      answer = `${hostileAnswer(next)} [end ${i}]`;
      await proc.trial(async () => {
        const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'ask', 'what happened'], {
          env: { ...process.env, KORTTY_HOME: home },
          encoding: 'buffer',
          timeout: 60_000,
        });
        check(stdout.includes(Buffer.from(`[end ${i}]`)), () => `answer ${i} did not arrive: ${stdout}`);
        await assertInert(stdout);
      }, `seed ${seed} process ${i}`);
    }
  } finally {
    await fake.close();
    await rm(home, { recursive: true, force: true });
  }
  rows.push(proc);

  // 3. --json output: still valid JSON, the same value, nothing a terminal acts on.
  const json = createRow('terminal: fuzzed values as --json output');
  for (let i = 0; i < opts.json; i++) {
    const value = { answer: hostileAnswer(next), path: `/tmp/${hostileAnswer(next)}`, n: i };
    await json.trial(async () => {
      const text = escapeForJson(JSON.stringify(value, null, 2));
      check(JSON.stringify(JSON.parse(text)) === JSON.stringify(value), 'JSON value changed');
      await assertInert(Buffer.from(text));
    }, `seed ${seed} json ${i}`);
  }
  rows.push(json);
  opts.log?.(`terminal: ${opts.streams} streams, ${opts.processes} processes, ${opts.json} JSON values`);
  return rows;
}
