import { createHash } from 'node:crypto';

// A third question set for the selection evaluation, written by people other than the pages'
// authors: the option descriptions of fish's completions (`complete -c tar -s x -d 'Extract from
// archive'`). Each says what a user wants done in a few words, the way a question names a goal
// rather than the page's wording, and is judged by the page of the program it completes. Pure:
// the caller reads the files (Debian's fish package ships them in /usr/share/fish/completions).

/** Shorter descriptions ("Verbose mode") say too little to be a question. */
const MIN_WORDS = 4;
/** At most this many questions per program, so no page dominates the set. */
export const PER_PAGE = 2;

/** The words of one fish command line, quotes removed ('…' literal; "…" and bare words take \-escapes). */
export function fishWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      inWord = true;
      for (i++; i < line.length && line[i] !== "'"; i++) {
        if (line[i] === '\\' && (line[i + 1] === "'" || line[i + 1] === '\\')) i++;
        cur += line[i];
      }
    } else if (ch === '"') {
      inWord = true;
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '\\' && i + 1 < line.length) i++;
        cur += line[i];
      }
    } else if (ch === '\\' && i + 1 < line.length) {
      inWord = true;
      cur += line[++i];
    } else if (ch === ' ' || ch === '\t') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else if (ch === '#' && !inWord) {
      break;
    } else {
      inWord = true;
      cur += ch;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/**
 * The option descriptions a completion file gives for `program`: its `complete -c program … -d …`
 * lines without a condition (`-n`), since a conditioned line describes a subcommand's option
 * (`git add --force`), which another page documents.
 */
export function completionDescriptions(program: string, file: string): string[] {
  const out: string[] = [];
  for (const raw of file.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('complete ')) continue;
    const w = fishWords(line);
    let command: string | undefined;
    let desc: string | undefined;
    let conditioned = false;
    for (let i = 1; i < w.length; i++) {
      const x = w[i]!;
      if (x === '-n' || x === '--condition' || x.startsWith('--condition=')) conditioned = true;
      else if (x === '-c' || x === '--command') command = w[++i];
      else if (x.startsWith('--command=')) command = x.slice('--command='.length);
      else if (x === '-d' || x === '--description') desc = w[++i];
      else if (x.startsWith('--description=')) desc = x.slice('--description='.length);
    }
    // A description made by command substitution or a variable is not text anyone wrote.
    if (command === program && !conditioned && desc && !desc.includes('$') && !desc.startsWith('('))
      out.push(desc.trim());
  }
  return out;
}

const words = (s: string) => s.split(/\s+/).filter((w) => /[a-z]/i.test(w));
const norm = (s: string) =>
  words(s)
    .join(' ')
    .toLowerCase()
    .replace(/[.:]+$/, '');

/**
 * Up to PER_PAGE questions per program: descriptions of at least MIN_WORDS words that no other
 * program of the set also uses (shared ones such as "Display help and exit" judge no single page),
 * picked by a hash of the text so the choice is fixed and does not favour any kind of option.
 */
export function pickOptionQuestions(
  byProgram: ReadonlyMap<string, readonly string[]>,
): { program: string; text: string }[] {
  const owners = new Map<string, Set<string>>();
  for (const [program, descs] of byProgram)
    for (const d of descs) {
      const k = norm(d);
      const set = owners.get(k) ?? new Set<string>();
      set.add(program);
      owners.set(k, set);
    }
  const out: { program: string; text: string }[] = [];
  for (const program of [...byProgram.keys()].sort()) {
    const seen = new Set<string>();
    const usable = byProgram.get(program)!.filter((d) => {
      const k = norm(d);
      if (seen.has(k) || words(d).length < MIN_WORDS || owners.get(k)!.size > 1) return false;
      seen.add(k);
      return true;
    });
    const rank = (d: string) => createHash('sha256').update(`${program}\n${d}`).digest('hex');
    usable.sort((a, b) => (rank(a) < rank(b) ? -1 : 1));
    for (const text of usable.slice(0, PER_PAGE)) out.push({ program, text });
  }
  return out;
}

/**
 * How people put such a goal to a search box or a colleague; the "asked" set wraps each option
 * question in one of these, in turn, to measure what a question's own words do to ranking.
 */
export const QUESTION_FORMS = [
  'How do I %?',
  'How can I %?',
  'Is there a way to %?',
  'What option lets me %?',
  'How would I %?',
] as const;

/** The i-th option question as a question: its first letter lowered unless it starts an acronym. */
export function askedForm(text: string, i: number): string {
  return QUESTION_FORMS[i % QUESTION_FORMS.length]!.replace('%', () => goal(text));
}

/**
 * How people ask when they know the program: the "named" set puts each option question, names
 * unmasked, in one of these in turn. `make` opens the first on purpose: it is also a page's name,
 * as `file`, `time` and `sort` are, and a question's other words must not send it there.
 */
export const NAMED_FORMS = [
  'How do I make @ %?',
  'In @, how can I %?',
  'Is there a way to % with @?',
  'What @ option lets me %?',
  'How would I % using @?',
] as const;

/** The i-th option question as a question naming `program` (`@`). */
export function namedForm(text: string, program: string, i: number): string {
  return NAMED_FORMS[i % NAMED_FORMS.length]!.replace('@', () => program).replace('%', () => goal(text));
}

const goal = (text: string) =>
  text.replace(/[.\s]+$/, '').replace(/^([A-Z])(?![A-Z])/, (c) => c.toLowerCase());
