import test from 'ava';
import {
  askedForm,
  completionDescriptions,
  fishWords,
  NAMED_FORMS,
  namedForm,
  PER_PAGE,
  pickOptionQuestions,
  QUESTION_FORMS,
} from '../../bench/option-questions.js';
import { assembleAsked, assembleNamed, assembleOptionQuestions } from '../../bench/selection-set.js';

// The option-question set of the selection evaluation (bench/option-questions.ts): fish's
// completion lines read as fish reads them, conditioned and generated descriptions left out,
// shared and short ones never judged, the pick fixed and bounded per program.

test('fishWords: quotes, escapes and comments as fish reads them', (t) => {
  t.deepEqual(fishWords(`complete -c tar -s x -d 'Extract from archive'`), [
    'complete',
    '-c',
    'tar',
    '-s',
    'x',
    '-d',
    'Extract from archive',
  ]);
  t.deepEqual(fishWords(`a "say \\"hi\\" now" 'it\\'s' b\\ c # trailing comment`), [
    'a',
    'say "hi" now',
    "it's",
    'b c',
  ]);
  t.deepEqual(fishWords(`x 'a#b' c#d`), ['x', 'a#b', 'c#d'], 'a # inside a word is not a comment');
});

test('completionDescriptions: top-level options of the program only', (t) => {
  const file = [
    '# tar completions',
    `complete -c tar -s x -l extract -d 'Extract files from an archive'`,
    `complete -c tar --description="List the contents of an archive" -s t`,
    `complete -c tar -n '__fish_seen_subcommand_from foo' -l bar -d 'A subcommand option'`,
    `complete -c gtar -s z -d 'Filter the archive through gzip'`,
    `complete -c tar -s f -d "Archive file $HOME"`,
    `complete -c tar -s C -d (__fish_describe_dir)`,
    `complete -c tar -s v`,
    `function __fish_complete_tar -d "Peek inside of archives"`,
  ].join('\n');
  t.deepEqual(completionDescriptions('tar', file), [
    'Extract files from an archive',
    'List the contents of an archive',
  ]);
});

test('pickOptionQuestions: long, unshared descriptions, at most PER_PAGE per program, a fixed pick', (t) => {
  const byProgram = new Map([
    [
      'tar',
      [
        'Extract files from an archive',
        'Display help and exit',
        'Verbose mode',
        'List the contents of an archive',
        'Append files to the end of an archive',
        'Extract files from an archive',
      ],
    ],
    ['zip', ['Display help and exit.', 'Store only, no compression at all']],
  ]);
  const picked = pickOptionQuestions(byProgram);
  t.is(PER_PAGE, 2);
  t.is(picked.filter((q) => q.program === 'tar').length, PER_PAGE);
  for (const q of picked) {
    t.not(q.text.replace(/\.$/, ''), 'Display help and exit', 'shared by two programs: judges neither');
    t.not(q.text, 'Verbose mode', 'too short to be a question');
  }
  t.deepEqual(
    picked.filter((q) => q.program === 'zip'),
    [{ program: 'zip', text: 'Store only, no compression at all' }],
  );
  t.is(new Set(picked.map((q) => q.text)).size, picked.length, 'a repeated description counts once');
  t.deepEqual(
    pickOptionQuestions(new Map([...byProgram].reverse())),
    picked,
    'the order of the input does not matter',
  );
});

test('assembleOptionQuestions: the program names masked, judged by its page, pages without text skipped', (t) => {
  const pages = [{ name: 'gzip', text: 'NAME\n       gzip, gunzip, zcat - compress or expand files\n' }];
  const queries = assembleOptionQuestions(pages, [
    { program: 'gzip', text: 'Make gunzip keep the original file' },
    { program: 'absent', text: 'Not in the corpus at all' },
  ]);
  t.deepEqual(queries, [
    {
      id: 'options-gzip-0',
      set: 'options',
      kind: 'options',
      page: 'gzip',
      text: 'Make the program keep the original file',
    },
  ]);
});

test('askedForm and assembleAsked: each question put in the next form, acronyms and judgements kept', (t) => {
  t.is(askedForm('Extract files from an archive.', 0), 'How do I extract files from an archive?');
  t.is(askedForm('PIDs of the sender', 1), 'How can I PIDs of the sender?', 'an acronym keeps its case');
  t.is(askedForm('Show $1 sizes', 3), 'What option lets me show $1 sizes?', 'replacement patterns stay text');
  t.is(askedForm('x y', QUESTION_FORMS.length + 2), 'Is there a way to x y?');
  const options = [
    {
      id: 'options-tar-0',
      set: 'options' as const,
      kind: 'options' as const,
      page: 'tar',
      text: 'List archive',
    },
    {
      id: 'options-du-1',
      set: 'options' as const,
      kind: 'options' as const,
      page: 'du',
      text: 'Count links',
    },
  ];
  t.deepEqual(assembleAsked(options), [
    { id: 'asked-tar-0', set: 'asked', kind: 'asked', page: 'tar', text: 'How do I list archive?' },
    { id: 'asked-du-1', set: 'asked', kind: 'asked', page: 'du', text: 'How can I count links?' },
  ]);
});

test('namedForm and assembleNamed: unmasked questions naming their program, only for pages in the corpus', (t) => {
  t.is(
    namedForm('Extract files from an archive.', 'tar', 0),
    'How do I make tar extract files from an archive?',
  );
  t.is(
    namedForm('Show $1 sizes', 'du', 1),
    'In du, how can I show $1 sizes?',
    'replacement patterns stay text',
  );
  t.is(namedForm('Count links', 'du', NAMED_FORMS.length + 3), 'What du option lets me count links?');
  const picked = [
    { program: 'tar', text: 'List tar archive' },
    { program: 'gone', text: 'Never asked' },
    { program: 'du', text: 'Count links' },
  ];
  t.deepEqual(assembleNamed([{ name: 'tar' }, { name: 'du' }], picked), [
    {
      id: 'named-tar-0',
      set: 'named',
      kind: 'named',
      page: 'tar',
      text: 'How do I make tar list tar archive?',
    },
    {
      id: 'named-du-2',
      set: 'named',
      kind: 'named',
      page: 'du',
      text: 'Is there a way to count links with du?',
    },
  ]);
});
