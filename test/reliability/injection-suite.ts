import { mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { checkCitations, extractCitations } from '../../src/ai/citations.js';
import { presetFor } from '../../src/ai/presets.js';
import { loadPresets } from '../../src/ai/presets-file.js';
import { assemblePrompt } from '../../src/ai/prompt.js';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { CONTEXT_CLOSE, CONTEXT_OPEN } from '../../src/retrieve/block.js';
import { search } from '../../src/retrieve/search.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore, findStore } from '../../src/store/engine.js';
import { buildTextPdf } from '../fixtures/pdf.js';
import { homeWithStarter } from '../helpers/store-env.js';
import { count, parseBlock, specialTokensIn, tolerantTagCount } from '../retrieve/helpers.js';
import { type HostileDoc, injectionCorpus } from '../retrieve/injection-corpus.js';
import { check, createRow, type SuiteRow, scratchDirSync } from './common.js';

// Item 6: the injection corpus (test/retrieve/injection-corpus.ts: instructions to ignore the
// rules, call tools, reveal secrets; forged wrapper closings, markers and excerpt headers;
// chat-template tokens) written as real files (Markdown, text, code, HTML whose entities decode
// to the raw payload, and PDFs), indexed into a real store with the real model, retrieved by
// the real hybrid search and assembled into prompts: each prompt has exactly one intact wrapper,
// forged markers never appear as real ones, and the citation check rejects answers citing them.

export interface InjectionOptions {
  /** Forms per document: 1 = one file each (extension rotates), 3 = also HTML and PDF copies. */
  extraPerDoc?: number;
  /** Use only every n-th document of the corpus (default 1: all). */
  every?: number;
  log?: (line: string) => void;
}

/** HTML-escaped, control characters as numeric entities: the extractor decodes them back. */
const htmlEscape = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\u0000-\u001f\u007f]/g, (c) => (c === '\n' ? c : `&#${c.charCodeAt(0)};`));

interface Placed {
  doc: HostileDoc;
  token: string;
  form: string;
  /** The scanner must refuse it: raw control bytes in a text file (reason control-bytes). */
  refused: boolean;
}

const SOURCES = 8;
/** Raw C0 controls other than tab, LF, CR and form feed: text files holding them are refused. */
const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

/** Latin-1 only (the PDF fixture's font): anything else becomes '?'. */
const latin1 = (s: string) => s.replace(/[^\u0020-\u007e\u00a0-\u00ff]/g, '?');

function place(root: string, corpus: HostileDoc[], forms: number): Placed[] {
  const placed: Placed[] = [];
  corpus.forEach((doc, i) => {
    // A unique word, so a query can find this document; paths keep their hostility except line
    // breaks (names with line breaks are never indexed: the hostile-files suite covers those).
    const kinds = forms >= 3 ? ['plain', 'html', 'pdf'] : [['md', 'txt', 'py', 'html'][i % 4]!];
    for (const kind of kinds) {
      const token = `zq${i}${kind.slice(0, 2)}x`;
      const safe = doc.path.replace(/[\r\n]/g, ' ');
      const base = join(root, `src${i % SOURCES}`, `d${String(i).padStart(3, '0')}${kind}`, safe);
      const body = `${doc.text}\nreference word: ${token}\n`;
      let path: string;
      let bytes: string | Buffer;
      if (kind === 'html') {
        path = `${base}.html`;
        bytes = `<html><body><h1>Notes</h1><pre>${htmlEscape(body)}</pre></body></html>\n`;
      } else if (kind === 'pdf') {
        path = `${base}.pdf`;
        bytes = buildTextPdf([latin1(body).split('\n').filter(Boolean)]);
      } else {
        const ext = kind === 'plain' ? ['md', 'txt', 'py'][i % 3]! : kind;
        path = `${base}.${ext}`;
        bytes = kind === 'py' || ext === 'py' ? body.replace(/^/gm, '# ') : body;
      }
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, bytes);
      placed.push({
        doc,
        token,
        form: kind,
        refused: typeof bytes === 'string' && kind !== 'html' && CONTROL.test(bytes),
      });
    }
  });
  return placed;
}

/**
 * What is wrong with an assembled prompt, or null. Everything is re-derived from the text: one
 * wrapper (in any spelling), intact, its headers exactly R1..Rn, no control token, no marker
 * look-alike anywhere that a citation check would read as a marker, no forged marker verbatim.
 */
export function promptProblem(
  flat: string,
  block: string,
  markers: string[],
  n: number,
  forged: string[],
): string | null {
  const want = Array.from({ length: n }, (_, k) => `R${k + 1}`);
  if (count(flat, CONTEXT_OPEN) !== 1 || count(flat, CONTEXT_CLOSE) !== 1) return 'not exactly one wrapper';
  if (tolerantTagCount(flat, 'retrieved') !== 2) return 'a look-alike wrapper tag survived';
  if (tolerantTagCount(flat, 'terminal') !== 2) return 'a look-alike selection tag survived';
  const inFlat = flat.slice(flat.indexOf(CONTEXT_OPEN), flat.indexOf(CONTEXT_CLOSE) + CONTEXT_CLOSE.length);
  if (inFlat !== block) return 'the block is not intact';
  let parsed: ReturnType<typeof parseBlock>;
  try {
    parsed = parseBlock(block);
  } catch (err) {
    return `the block does not parse: ${(err as Error).message}`;
  }
  if (JSON.stringify(parsed.excerpts.map((e) => e.marker)) !== JSON.stringify(want))
    return 'headers differ from R1..Rn';
  if (JSON.stringify(markers) !== JSON.stringify(want)) return 'prompt markers differ';
  const tokens = specialTokensIn(flat);
  if (tokens.length > 0) return `control tokens in the prompt: ${tokens.join(' ')}`;
  if (JSON.stringify(extractCitations(block)) !== JSON.stringify(want))
    return 'the block cites more than its headers';
  for (const e of parsed.excerpts)
    if (extractCitations(e.body).length > 0) return `a marker inside excerpt ${e.marker}`;
  if (!extractCitations(flat).every((m) => markers.includes(m))) return 'a forged marker reads as a citation';
  for (const m of forged) {
    if (markers.includes(m)) return `forged ${m} is a real marker`;
    if (flat.includes(`[${m}]`)) return `forged [${m}] appears verbatim`;
  }
  return null;
}

/** The same checks on prompts built WITHOUT sanitising must object: the harness can fail. */
function selfCheck(corpus: HostileDoc[]): SuiteRow {
  const row = createRow('injection harness self-check: unsanitised prompts are reported');
  let caught = 0;
  // Documents spelling a wrapper tag or a control token (raw, not entity- or URL-encoded).
  const structural = (d: HostileDoc) =>
    tolerantTagCount(d.text, 'retrieved') + tolerantTagCount(d.text, 'terminal') > 0 ||
    specialTokensIn(d.text).length > 0;
  for (const [i, doc] of corpus.entries()) {
    row.trials++;
    const other = corpus[(i + 1) % corpus.length]!;
    const block = `${CONTEXT_OPEN}\nuntrusted data\n\n[R1] ${doc.path} · store S\n<excerpt id="R1">\n${doc.text}\n</excerpt>\n${CONTEXT_CLOSE}`;
    const flat = `contract\n\n${block}\n\n<terminal_selection>\n${other.text}\n</terminal_selection>\n\nquestion`;
    const problem = promptProblem(flat, block, ['R1'], 1, [...doc.forgedMarkers, ...other.forgedMarkers]);
    if (problem !== null) caught++;
    // Documents that forge structure (wrappers, control tokens) must always be reported; pure
    // prose injections ("ignore the rules") are harmless to the structure, so may pass.
    else if (structural(doc) || structural(other)) row.fail(`unsanitised ${doc.id} was not reported`);
  }
  row.note(`${caught} of ${corpus.length} unsanitised prompts reported (every structural one)`);
  return row;
}

export async function runInjectionSuite(opts: InjectionOptions = {}): Promise<SuiteRow[]> {
  const log = opts.log ?? (() => {});
  const corpus = injectionCorpus().filter((_, i) => i % (opts.every ?? 1) === 0);
  const root = scratchDirSync('kortty-rel-inject-');
  const placed = place(root, corpus, opts.extraPerDoc ?? 1);
  const home = await homeWithStarter();
  const indexRow = createRow(
    `injection: ${placed.length} hostile files (${corpus.length} documents) indexed`,
  );
  const promptRow = createRow('injection: retrieved and assembled: one intact wrapper, no forged marker');
  const citeRow = createRow('injection: citation check rejects answers citing forged markers');
  await indexRow.trial(async () => {
    await createStore({ name: 'Hostile', modelId: 'kortty-lexical-starter', roles: ['text'] }, home);
    const inputs = Array.from({ length: SOURCES }, (_, k) => ({
      kind: 'folder' as const,
      path: join(root, `src${k}`),
    }));
    await addSources('Hostile', inputs, { ports: createDefaultPorts(home) }, home);
    const cfg = await findStore('Hostile', home);
    const files = cfg.sources.reduce((n, s) => n + s.files, 0);
    // A text file with raw terminal escapes is skipped at scan with its reason: a skip the user
    // chose by the rules (skippedList), not a problem to fix (problemList).
    const refused = cfg.sources.flatMap((s) => s.skippedList);
    const problems = cfg.sources.flatMap((s) => s.problemList);
    const want = placed.filter((p) => !p.refused).length;
    check(
      cfg.sources.every((s) => s.status === 'READY'),
      'a source is not READY',
    );
    check(problems.length === 0, () => `unexpected problems: ${JSON.stringify(problems.slice(0, 5))}`);
    check(files === want, () => `${files} of ${want} files indexed: ${JSON.stringify(refused.slice(0, 5))}`);
    check(
      refused.length === placed.length - want && refused.every((r) => r.reason === 'control-bytes'),
      () =>
        `unexpected skips: ${refused.length} for ${placed.length - want} files with raw escapes: ${JSON.stringify(refused.slice(0, 5))}`,
    );
    indexRow.note(`${want} indexed; ${refused.length} refused at scan (raw terminal escapes in a text file)`);
  });
  log(`injection: ${placed.length} files indexed`);
  const cfg = await findStore('Hostile', home);
  const preset = presetFor('qwen', await loadPresets());
  const deps = createSearchDeps(home);
  const byToken = new Map(placed.map((p) => [p.token, p]));
  const live = placed.filter((p) => !p.refused);
  let missed = 0;
  try {
    for (const [i, p] of live.entries()) {
      // Three unique words from three sources: up to six hostile excerpts per prompt.
      const others = [live[(i + 1) % live.length]!, live[(i + 2) % live.length]!];
      const prompt = `${p.token} ${others.map((o) => o.token).join(' ')}`;
      const r = await promptRow.trial(async () => {
        const res = await search({ stores: [cfg], query: prompt }, deps);
        check(res.excerpts.length > 0, 'nothing retrieved');
        const hit = res.excerpts.some((e) => e.text.includes(p.token));
        if (!hit) missed++;
        const selection = corpus[(i * 7 + 1) % corpus.length]!; // the terminal selection is hostile too
        const a = assemblePrompt({
          action: 'ask',
          prompt,
          selection: selection.text,
          excerpts: res.excerpts,
          preset,
          requireCitations: true,
        });
        // Forged markers of every hostile text in this prompt.
        const inPrompt: HostileDoc[] = [selection];
        for (const e of res.excerpts) {
          const m = /zq\d+[a-z]{2}x/.exec(e.text);
          const q = m && byToken.get(m[0]);
          if (q) inPrompt.push(q.doc);
        }
        const forged = [...new Set(inPrompt.flatMap((d) => d.forgedMarkers))];
        const block = a.sections.find((s) => s.id === 'context')?.text ?? '';
        const problem = promptProblem(a.flat, block, a.markers, res.excerpts.length, forged);
        check(problem === null, problem ?? '');
        const parsed = parseBlock(block);
        return { a, parsed, forged };
      }, p.token);
      if (!r) continue;
      await citeRow.trial(async () => {
        const { a, parsed, forged } = r;
        const cite = forged.map((m) => `[${m}]`).join(' ');
        const code = (f: () => unknown) => {
          try {
            f();
            return 'accepted';
          } catch (err) {
            return (err as { code?: string }).code ?? 'thrown';
          }
        };
        const opt = { requireCitations: true };
        check(
          code(() => checkCitations(`It runs nightly ${cite}.`, a.markers, opt)) === 'CITATION_UNKNOWN',
          'forged citation accepted',
        );
        check(
          code(() => checkCitations(`It runs nightly [R1] ${cite}.`, a.markers, opt)) === 'CITATION_UNKNOWN',
          'forged citation beside a real one accepted',
        );
        for (const e of parsed.excerpts) {
          // Echoing a (neutralised) hostile excerpt is not a citation of anything.
          check(
            code(() => checkCitations(e.body, a.markers, opt)) === 'CITATION_MISSING',
            `echo of ${e.marker} counted as a citation`,
          );
        }
        check(
          checkCitations(`It runs nightly [R1].`, a.markers, opt).cited[0] === 'R1',
          'a real citation was rejected',
        );
      }, p.token);
    }
  } finally {
    await deps.close();
  }
  if (missed > 0)
    promptRow.fail(`${missed} documents were not retrieved by a query naming their unique word`);
  promptRow.note(
    `${live.length} prompts, each with a hostile terminal selection; ${missed} documents not retrieved by their unique word`,
  );
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
  return [indexRow, promptRow, citeRow, selfCheck(corpus)];
}
