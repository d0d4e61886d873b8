import { askedForm, namedForm } from './option-questions.js';
import type { Frame, LineCase, RunCase } from './selection-cases.js';

// The pure half of the selection evaluation set (bench/eval-selection.ts): volatile values of
// captured output made fixed, output framed as the text a user selects, the queries assembled in
// a fixed order with the cases that cannot run noted, and the derived question proxy (a page's
// first DESCRIPTION sentence with the program's own names masked). Judgement: the query's page.

export interface EvalQuery {
  id: string;
  /**
   * `selection`: terminal text of real programs; `proxy`: a question derived from a page;
   * `options`: an option's description from fish's completions (bench/option-questions.ts);
   * `asked`: the same put as a question ("How do I …?"); `named`: the same, unmasked, asked as a
   * question naming the program ("In tar, how can I …?").
   */
  set: 'selection' | 'proxy' | 'options' | 'asked' | 'named';
  /** The frame of a run case, `line` for a selected command line, else the question set's name. */
  kind: Frame | 'line' | 'proxy' | 'options' | 'asked' | 'named';
  /** The judged page (document id = rendered file name without `.txt`). */
  page: string;
  /** Pages judged as right as `page` (a subcommand's own page: RunCase's `also`). */
  also?: readonly string[];
  text: string;
}

/** The prompt every framed selection shows (a Debian bash prompt in the project directory). */
export const PROMPT = 'user@devbox:~/proj$ ';
const COLOR_PROMPT = '\x1b[01;32muser@devbox\x1b[00m:\x1b[01;34m~/proj\x1b[00m$ ';
/** Where CI-log timestamps start; each line is 137 ms after the one before. */
const LOG_START = Date.parse('2026-03-14T09:27:05.210Z');
/** A scrollback selection is about this many lines (filler cut to fit). */
export const SCROLLBACK_LINES = 200;

/** `argv` as a user would type it in bash: words quoted only when they need it. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./~-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * Captured output with its run-to-run noise fixed, so the set is the same on every run of one
 * machine: the temp directory the project lives under disappears (paths read `/home/user/proj`),
 * the real user's home directory reads `/home/user` too, wall-clock stamps, elapsed milliseconds
 * and OpenSSL's thread ids get fixed values; blank lines around the output are dropped.
 */
export function scrub(text: string, root: string, realHome?: string): string {
  const out = text.split(root).join('');
  return (realHome ? out.split(`${realHome}/`).join('/home/user/') : out)
    .replace(/\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\b/g, '2026-03-14 09:27:05')
    .replace(/\bafter \d+ ms\b/g, 'after 0 ms')
    .replace(/^[0-9A-F]{12,16}:error:/gm, '40D7E1BB787F0000:error:')
    .replace(/\r\n/g, '\n')
    .replace(/^(\s*\n)+/, '')
    .replace(/\s+$/, '');
}

/** The text a user selects: `output` of the command `shown`, in the given frame. */
export function frameSelection(frame: Frame, shown: string, output: string, filler?: string): string {
  switch (frame) {
    case 'output':
      return output;
    case 'prompt':
      return `${PROMPT}${shown}\n${output}`;
    case 'color-prompt':
      return `${COLOR_PROMPT}${shown}\n${output}`;
    case 'ci-log':
      return [`+ ${shown}`, ...output.split('\n')]
        .map((line, i) => `${new Date(LOG_START + i * 137).toISOString()} ${line}`)
        .join('\n');
    case 'scrollback': {
      const tail = `${PROMPT}${shown}\n${output}`;
      const room = Math.max(0, SCROLLBACK_LINES - tail.split('\n').length);
      const above = (filler ?? '').split('\n').slice(0, room).join('\n');
      return above ? `${above}\n${tail}` : tail;
    }
  }
}

export interface Captured {
  /** Scrubbed output of a run case, by case id ('' when it printed nothing). */
  outputs: ReadonlyMap<string, string>;
  /** The scrollback filler: an earlier command with its prompt and output. */
  filler: string;
}

/**
 * The selection queries in a fixed order (run cases then command lines, each sorted by id), and
 * a note for every case left out: its page is not in the corpus, its program is not installed
 * (no output captured), or it printed nothing.
 */
export function assembleSelection(
  runCases: readonly RunCase[],
  lineCases: readonly LineCase[],
  pages: ReadonlySet<string>,
  captured: Captured,
  corpus: ReadonlySet<string> = pages,
): { queries: EvalQuery[]; notes: string[] } {
  const queries: EvalQuery[] = [];
  // Only pages the corpus holds can be judged right: nDCG's ideal counts every judged page.
  const held = (also: readonly string[] | undefined) => {
    const kept = also?.filter((p) => corpus.has(p)) ?? [];
    return kept.length > 0 ? { also: kept } : {};
  };
  const notes: string[] = [];
  const byId = <T extends { id: string }>(xs: readonly T[]) =>
    [...xs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const c of byId(runCases)) {
    if (!pages.has(c.page)) {
      notes.push(`${c.id}: skipped, no man page for ${c.page}`);
      continue;
    }
    const out = captured.outputs.get(c.id);
    if (out === undefined) {
      notes.push(`${c.id}: skipped, ${c.argv[0]} is not installed`);
      continue;
    }
    if (out.trim() === '') {
      notes.push(`${c.id}: skipped, ${c.argv[0]} printed nothing`);
      continue;
    }
    const shown = c.shown ?? shellQuote(c.argv);
    queries.push({
      id: c.id,
      set: 'selection',
      kind: c.frame,
      page: c.page,
      ...held(c.also),
      text: frameSelection(c.frame, shown, out, captured.filler),
    });
  }
  for (const c of byId(lineCases)) {
    if (!pages.has(c.page)) {
      notes.push(`${c.id}: skipped, no man page for ${c.page}`);
      continue;
    }
    queries.push({
      id: c.id,
      set: 'selection',
      kind: 'line',
      page: c.page,
      ...held(c.also),
      text: c.line,
    });
  }
  return { queries, notes };
}

/** Relevance of a query: its page and the pages judged as right (`also`), gain 1 each. */
export function judgementOf(q: Pick<EvalQuery, 'page' | 'also'>): Map<string, number> {
  return new Map([q.page, ...(q.also ?? [])].map((p) => [p, 1]));
}

/** Shortest derived question worth asking (characters, after masking). */
const MIN_PROXY_CHARS = 30;
const MAX_PROXY_CHARS = 300;

/** The names a rendered page goes by: its file name and the names on its NAME line. */
export function pageNames(page: string, text: string): string[] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^NAME\s*$/.test(l));
  const names = new Set([page]);
  const first = at >= 0 ? lines.slice(at + 1).find((l) => l.trim() !== '') : undefined;
  const head = first?.split(/\s+[-\u2010-\u2015]\s+/)[0];
  for (const n of head?.split(',') ?? []) if (n.trim()) names.add(n.trim());
  return [...names];
}

/** The sentences of a page's DESCRIPTION, each with the program's names masked. */
function descriptionSentences(page: string, text: string): string[] | undefined {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^DESCRIPTION\s*$/.test(l));
  if (at < 0) return undefined;
  const body: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (/^\S/.test(l)) break; // the next section heading
    body.push(l.trim());
  }
  const prose = body.join(' ').replace(/\s+/g, ' ').trim();
  const names = pageNames(page, text);
  return [...prose.matchAll(/.+?[.!?](?=\s|$)|.+$/g)].map((m) => mask(m[0].trim(), names));
}

/**
 * A known-item question derived from a rendered man page: the first sentence of DESCRIPTION
 * (the next one too while shorter than MIN_PROXY_CHARS), with every name of the program masked
 * as "the program", so the question has to be answered from what it says the program does.
 * Sentences in `boilerplate` (masked, found on several pages: `This manual page documents the GNU
 * version of the program.`) are skipped: they judge no single page.
 */
export function descriptionQuestion(
  page: string,
  text: string,
  boilerplate: ReadonlySet<string> = new Set(),
): string | undefined {
  let sentence = '';
  for (const s of descriptionSentences(page, text) ?? []) {
    if (boilerplate.has(s)) continue;
    sentence = `${sentence} ${s}`.trim();
    if (sentence.length >= MIN_PROXY_CHARS) break;
  }
  const q = sentence.slice(0, MAX_PROXY_CHARS).trim();
  return q.length >= MIN_PROXY_CHARS ? q : undefined;
}

function mask(text: string, names: readonly string[]): string {
  let out = text;
  for (const n of [...names].sort((a, b) => b.length - a.length)) {
    const esc = n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`(?<![\\w-])${esc}(?![\\w-])`, 'gi'), 'the program');
  }
  return out;
}

/** The proxy queries: one per page with a usable DESCRIPTION, in page order; notes for the rest. */
export function assembleProxy(pages: readonly { name: string; text: string }[]): {
  queries: EvalQuery[];
  notes: string[];
} {
  const queries: EvalQuery[] = [];
  const notes: string[] = [];
  const pagesOf = new Map<string, number>();
  for (const p of pages)
    for (const s of new Set(descriptionSentences(p.name, p.text))) pagesOf.set(s, (pagesOf.get(s) ?? 0) + 1);
  const boilerplate = new Set([...pagesOf].filter(([, n]) => n > 1).map(([s]) => s));
  for (const p of [...pages].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const text = descriptionQuestion(p.name, p.text, boilerplate);
    if (text === undefined) notes.push(`proxy ${p.name}: skipped, no usable DESCRIPTION sentence`);
    else queries.push({ id: `proxy-${p.name}`, set: 'proxy', kind: 'proxy', page: p.name, text });
  }
  return { queries, notes };
}

/** The option questions: picked descriptions with the program's names masked, in page order. */
export function assembleOptionQuestions(
  pages: readonly { name: string; text: string }[],
  picked: readonly { program: string; text: string }[],
): EvalQuery[] {
  const byName = new Map(pages.map((p) => [p.name, p]));
  return picked.flatMap((q, i) => {
    const p = byName.get(q.program);
    if (!p) return [];
    const text = mask(q.text, pageNames(p.name, p.text));
    return [
      {
        id: `options-${q.program}-${i}`,
        set: 'options' as const,
        kind: 'options' as const,
        page: p.name,
        text,
      },
    ];
  });
}

/** The option questions asked as questions (`askedForm`), judged as before. */
export function assembleAsked(options: readonly EvalQuery[]): EvalQuery[] {
  return options.map((q, i) => ({
    ...q,
    id: q.id.replace(/^options-/, 'asked-'),
    set: 'asked' as const,
    kind: 'asked' as const,
    text: askedForm(q.text, i),
  }));
}

/** The option questions unmasked and asked naming their program (`namedForm`), in page order. */
export function assembleNamed(
  pages: readonly { name: string }[],
  picked: readonly { program: string; text: string }[],
): EvalQuery[] {
  const names = new Set(pages.map((p) => p.name));
  return picked.flatMap((q, i) =>
    names.has(q.program)
      ? [
          {
            id: `named-${q.program}-${i}`,
            set: 'named' as const,
            kind: 'named' as const,
            page: q.program,
            text: namedForm(q.text, q.program, i),
          },
        ]
      : [],
  );
}
