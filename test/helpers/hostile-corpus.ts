import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { buildLoopingPdf, buildTextPdf } from '../fixtures/pdf.js';
import { mulberry32 as seeded } from './prng.js';

// Generated hostile file trees for the reliability suite. Deterministic: the
// same seed gives the same bytes and names. Everything is written under a root the caller owns.

const WORDS = 'ledger vector harbor quartz meadow signal copper lantern orbit cedar prism tundra'.split(' ');

function pdfText(r: () => number): string[][] {
  const pages = 1 + Math.floor(r() * 3);
  return Array.from({ length: pages }, (_, p) =>
    Array.from(
      { length: 3 + Math.floor(r() * 8) },
      (_, l) =>
        `page ${p + 1} line ${l + 1} ${Array.from({ length: 6 }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ')}`,
    ),
  );
}

export type PdfMutation = 'flip' | 'truncate' | 'xref';

/** Ways to damage the cross-reference machinery (the parser's map of the file). */
const XREF_DAMAGE: ((pdf: Buffer, r: () => number) => Buffer)[] = [
  // offsets point at random places
  (pdf, r) => {
    const s = pdf.toString('latin1');
    return Buffer.from(
      s.replace(
        /^(\d{10}) 00000 n $/gm,
        () => `${String(Math.floor(r() * pdf.length * 2)).padStart(10, '0')} 00000 n `,
      ),
      'latin1',
    );
  },
  // startxref points past the end
  (pdf) =>
    Buffer.from(pdf.toString('latin1').replace(/startxref\n\d+/, `startxref\n${pdf.length * 10}`), 'latin1'),
  // the xref keyword and table are gone
  (pdf) => {
    const s = pdf.toString('latin1');
    return Buffer.from(s.slice(0, s.lastIndexOf('xref\n0 ')) + s.slice(s.indexOf('trailer')), 'latin1');
  },
  // the trailer's root is an object that does not exist
  (pdf) => Buffer.from(pdf.toString('latin1').replace('/Root 1 0 R', '/Root 999 0 R'), 'latin1'),
  // a stream claims to be far longer than it is
  (pdf) => Buffer.from(pdf.toString('latin1').replace(/\/Length (\d+)/, '/Length 99999999'), 'latin1'),
  // the table claims a huge object count
  (pdf) => Buffer.from(pdf.toString('latin1').replace(/\/Size \d+/, '/Size 2147483647'), 'latin1'),
  // the object count of the subsection is wrong and negative-looking
  (pdf) => Buffer.from(pdf.toString('latin1').replace(/xref\n0 \d+/, 'xref\n0 -5'), 'latin1'),
];

/** A text PDF damaged by seed: byte flips, truncation, or a damaged cross-reference table. */
export function mutatedPdf(seed: number): { bytes: Buffer; mutation: PdfMutation; detail: string } {
  const r = seeded(seed * 7919 + 13);
  const pdf = buildTextPdf(pdfText(r));
  const mutation: PdfMutation = (['flip', 'truncate', 'xref'] as const)[seed % 3]!;
  if (mutation === 'flip') {
    const out = Buffer.from(pdf);
    const n = 1 + Math.floor(r() * 12);
    for (let i = 0; i < n; i++) {
      const at = Math.floor(r() * out.length);
      out[at] = out[at]! ^ (1 + Math.floor(r() * 255));
    }
    return { bytes: out, mutation, detail: `${n} flipped bytes` };
  }
  if (mutation === 'truncate') {
    const keep = Math.max(1, Math.floor(pdf.length * (0.02 + r() * 0.96)));
    return { bytes: pdf.subarray(0, keep), mutation, detail: `first ${keep} of ${pdf.length} bytes` };
  }
  const k = Math.floor(seed / 3) % XREF_DAMAGE.length;
  return { bytes: XREF_DAMAGE[k]!(pdf, r), mutation, detail: `xref damage #${k}` };
}

export interface HostileTree {
  /** Regular files with valid names, root-relative, and what the suite can assert about each. */
  files: { rel: string; kind: 'pdf' | 'text' | 'deep' | 'binary' | 'bad-utf8-content' }[];
  badNames: number;
  specials: number;
  symlinks: number;
  deepLeaf: string;
}

function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path} failed: ${r.stderr}`);
}

/** A unix socket file left behind by a closed server. */
async function socketFile(path: string): Promise<void> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(path, () => resolve());
  });
  // Closing unlinks the socket path in libuv; re-create the entry by listening without closing
  // cleanly is not portable, so keep the server until the process exits.
  srv.unref();
}

/**
 * The static hostile tree: `pdfs` mutated PDFs, a `depth`-level deep directory chain with files
 * along it, names that are invalid UTF-8 or contain line breaks and control characters, FIFOs,
 * a socket, symbolic-link loops, and a few hostile contents (binary, invalid UTF-8, NULs).
 */
export async function writeHostileTree(
  root: string,
  opts: { pdfs: number; depth: number },
): Promise<HostileTree> {
  const tree: HostileTree = { files: [], badNames: 0, specials: 0, symlinks: 0, deepLeaf: '' };
  const file = (rel: string, bytes: Buffer | string, kind: HostileTree['files'][number]['kind']) => {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), bytes);
    tree.files.push({ rel, kind });
  };
  for (let s = 0; s < opts.pdfs; s++) {
    const m = mutatedPdf(s);
    file(`pdf/${String(s).padStart(3, '0')}-${m.mutation}.pdf`, m.bytes, 'pdf');
  }
  // Deep chain: d/d/…/d (depth levels) with a file every 100 levels and a leaf at the bottom.
  let rel = 'deep';
  for (let i = 1; i <= opts.depth; i++) {
    rel += '/d';
    if (i % 100 === 0 && i < opts.depth)
      file(`${rel}/level-${i}.md`, `level ${i} of the deep chain\n`, 'deep');
  }
  tree.deepLeaf = `${rel}/leaf.md`;
  file(tree.deepLeaf, `the leaf at depth ${opts.depth}: harbor lantern\n`, 'deep');

  // Names the pipeline cannot carry safely: invalid UTF-8, line breaks, control characters.
  const names = join(root, 'names');
  mkdirSync(names, { recursive: true });
  const bad: Buffer[] = [
    Buffer.from([0x62, 0x61, 0x64, 0xff, 0xfe, 0x2e, 0x6d, 0x64]), // bad\xff\xfe.md
    Buffer.from([0xc3, 0x28, 0x2e, 0x74, 0x78, 0x74]), // invalid 2-byte sequence
    Buffer.from([0xed, 0xa0, 0x80, 0x2e, 0x6d, 0x64]), // encoded surrogate
    Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80, 0x2e, 0x6d, 0x64]), // 5-byte form
    Buffer.from('line\nbreak.md'),
    Buffer.from('carriage\rreturn.md'),
    Buffer.from('escape\u001b[31mred.md'),
    Buffer.from('bell\u0007.txt'),
    Buffer.from('c1\u0085next.md'),
  ];
  for (const b of bad) {
    writeFileSync(Buffer.concat([Buffer.from(`${names}/`), b]), 'text under a hostile name\n');
    tree.badNames++;
  }
  // A directory with a bad name, holding a normal file (never entered).
  const badDir = Buffer.concat([Buffer.from(`${names}/`), Buffer.from([0x64, 0x69, 0x72, 0xff])]);
  mkdirSync(badDir);
  writeFileSync(Buffer.concat([badDir, Buffer.from('/inside.md')]), 'inside a badly named directory\n');
  tree.badNames++;
  file('names/ok-ünïcødé-名前.md', 'a valid unicode name\n', 'text');
  file(`names/${'l'.repeat(250)}.md`, 'a 253-byte name\n', 'text');

  // FIFOs and a socket under allowlisted names: opening a FIFO for reading would block forever.
  mkdirSync(join(root, 'special'), { recursive: true });
  for (const n of ['pipe.md', 'pipe.txt', 'pipe.pdf']) {
    mkfifo(join(root, 'special', n));
    tree.specials++;
  }
  await socketFile(join(root, 'special', 'socket.md'));
  tree.specials++;

  // Symbolic-link loops and links out of the tree.
  const links = join(root, 'links');
  mkdirSync(links, { recursive: true });
  symlinkSync('loop-b.md', join(links, 'loop-a.md'));
  symlinkSync('loop-a.md', join(links, 'loop-b.md'));
  symlinkSync('self.md', join(links, 'self.md'));
  symlinkSync('.', join(links, 'dot'));
  symlinkSync('..', join(links, 'up'));
  symlinkSync('/etc/passwd', join(links, 'passwd.txt'));
  symlinkSync('missing/nowhere.md', join(links, 'dangling.md'));
  tree.symlinks += 7;

  // Hostile contents under allowlisted names.
  file('content/binary.txt', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131) % 256)), 'binary');
  file('content/bad-utf8.md', Buffer.from([0x68, 0x69, 0x20, 0xc3, 0x28, 0x0a]), 'bad-utf8-content');
  file('content/nul.md', Buffer.from('before\u0000after\n'), 'binary');
  file('content/empty.md', '', 'text');
  file('content/one-long-line.md', `${'word '.repeat(40_000)}\n`, 'text');
  file('content/crlf.md', 'dos\r\nline endings\r\n', 'text');
  file('content/bom.md', '\ufeffbyte order mark\n', 'text');
  file('content/not-a-pdf.pdf', 'this is plain text with a .pdf name\n', 'pdf');
  file('content/empty.pdf', '', 'pdf');
  return tree;
}

/** A PDF whose page tree contains itself: the parser walks it until it is killed. */
export function loopingPdf(): Buffer {
  return buildLoopingPdf();
}

/** `n` small files in one directory (names sorted = creation order). */
export function writeBigDir(dir: string, n: number): void {
  mkdirSync(dir, { recursive: true });
  const width = String(n).length;
  for (let i = 0; i < n; i++) {
    const name = `f${String(i).padStart(width, '0')}${i % 10 === 0 ? '.md' : '.dat'}`;
    writeFileSync(join(dir, name), i % 10 === 0 ? `entry ${i}\n` : '');
  }
}
