import test from 'ava';
import stringWidth from 'string-width';
import { table } from '../../src/cli/progress.js';
import { reviewToLines } from '../../src/scan/review-text.js';
import { renderTable } from '../../src/tui/table.js';
import { wrap, wrapPreformatted } from '../../src/tui/text.js';
import type { Review } from '../../src/types.js';
import {
  fit as fitCells,
  graphemes,
  pad,
  sliceCells,
  truncate,
  truncateStart,
  width,
} from '../../src/util/display-width.js';

// Terminal cells by grapheme cluster (src/util/display-width.ts), everywhere columns line up.

const ROCKET = '🚀';
const THUMBS_TONE = '👍🏽'; // U+1F44D + U+1F3FD (skin tone modifier)
const FAMILY = '👨‍👩‍👧'; // three emoji joined by U+200D (ZWJ)
const HEART_VS16 = '❤️'; // U+2764 (text presentation by default) + U+FE0F
const E_ACUTE = 'e\u0301'; // e + combining acute
const FLAG = '🇯🇵'; // two regional indicators

test('width: emoji, CJK, combining marks, ZWJ sequences, skin tones, VS16, flags', (t) => {
  const cases: [string, number][] = [
    ['abc', 3],
    [ROCKET, 2],
    ['✅', 2],
    ['🟢', 2],
    [THUMBS_TONE, 2],
    [FAMILY, 2],
    [HEART_VS16, 2],
    ['❤', 1],
    [E_ACUTE, 1],
    ['é', 1],
    ['漢字', 4],
    ['ｱ', 1], // half-width katakana
    ['Ａ', 2], // full-width Latin
    [FLAG, 2],
    ['─│…·›', 5], // ambiguous width: one cell outside CJK locales
    [`${ROCKET}a${FAMILY}b`, 6],
  ];
  for (const [s, w] of cases) t.is(width(s), w, JSON.stringify(s));
  t.deepEqual(
    graphemes(`a${THUMBS_TONE}${E_ACUTE}${FAMILY}`).map((g) => [g.text, g.width]),
    [
      ['a', 1],
      [THUMBS_TONE, 2],
      [E_ACUTE, 1],
      [FAMILY, 2],
    ],
  );
});

test('width agrees with string-width and with the painted graphemes, repeated or not', (t) => {
  const samples = [
    `${ROCKET}${THUMBS_TONE}${FAMILY}${HEART_VS16}${E_ACUTE}${FLAG}`,
    '日本語メモ · Заметки · ｶﾞ · Ａ',
    'keycap 1\uFE0F\u20E3, zero\u200Bwidth, tab\tx',
    'Ελληνικά, עִבְרִית, हिन्दी, ไทย',
  ];
  for (const s of samples) {
    // Twice: the second answer comes from the cache of graphemes already measured.
    for (let i = 0; i < 2; i++) {
      t.is(width(s), stringWidth(s, { countAnsiEscapeCodes: true }), JSON.stringify(s));
      t.is(
        width(s),
        graphemes(s).reduce((n, g) => n + g.width, 0),
        JSON.stringify(s),
      );
    }
  }
  // A cluster string-width counts wider than two cells (repeated leading jamo) is one wide cell
  // pair, as the painter draws it: the layout and the grid never disagree.
  const jamo = '\u1100\u1100\u1100';
  t.is(graphemes(jamo).length, 1);
  t.true(stringWidth(jamo) > 2);
  t.is(width(jamo), 2);
});

test('truncate, pad and slice by cells never split a grapheme', (t) => {
  t.is(truncate(`${ROCKET}${ROCKET}${ROCKET}`, 5), `${ROCKET}${ROCKET}…`);
  t.is(truncate(`${ROCKET}${ROCKET}${ROCKET}`, 4), `${ROCKET}…`);
  t.is(truncate(`ab${FAMILY}cd`, 4), 'ab…');
  t.is(truncate(`ab${E_ACUTE}${E_ACUTE}cd`, 5), `ab${E_ACUTE}${E_ACUTE}…`);
  t.is(truncate('short', 9), 'short');
  t.is(truncateStart(`/x/${THUMBS_TONE}/file.md`, 11), `…${THUMBS_TONE}/file.md`);
  t.is(truncateStart(`/x/${THUMBS_TONE}/file.md`, 10), '…/file.md');
  t.is(pad(ROCKET, 4), `${ROCKET}  `);
  t.is(pad('漢', 3, 'right'), ' 漢');
  t.is(width(fitCells(`名前${FAMILY}長い名前`, 7)), 7);
  for (const s of [`a${ROCKET}b`, `${FAMILY}${THUMBS_TONE}`, '漢字かな', `x${E_ACUTE}y`])
    for (let start = 0; start < 6; start++)
      for (let n = 0; n < 6; n++)
        t.is(width(sliceCells(s, start, n)), Math.max(0, Math.min(n, width(s) - start)));
  t.is(sliceCells(`a${ROCKET}b`, 2, 2), ' b', 'a wide grapheme cut by the window edge becomes a space');
});

test('wrap breaks at word boundaries by cells; preformatted text keeps its spaces', (t) => {
  t.deepEqual(wrap(`${ROCKET} launch ${FAMILY} family ok`, 10), [
    `${ROCKET} launch`,
    `${FAMILY} family`,
    'ok',
  ]);
  t.deepEqual(wrap('漢字漢字漢字', 5), ['漢字', '漢字', '漢字']);
  const code = 'def f(x):\n    return  x  *  2\t# doubled';
  const lines = code.split('\n').flatMap((l) => wrapPreformatted(l, 12));
  t.deepEqual(lines, ['def f(x):', '    return  ', 'x  *  2     ', '# doubled']);
  t.is(wrapPreformatted('    return  x  *  2\t# doubled', 80).join(''), '    return  x  *  2     # doubled');
});

test('tables line up by cells in the pane and in the CLI', (t) => {
  const names = [
    `${ROCKET} launch`,
    `${THUMBS_TONE} ok`,
    `${FAMILY} family`,
    '日本語メモ',
    `caf${E_ACUTE}`,
    'plain',
  ];
  const lines = renderTable({
    columns: [
      { header: 'NAME', width: 14 },
      { header: 'N', width: 3, align: 'right' },
    ],
    rows: names.map((n, i) => ({ cells: [n, String(i)] })),
    width: 20,
    height: 10,
    focused: false,
  });
  for (const l of lines) t.is(width(l.segs.map((s) => s.text).join('')), 19, JSON.stringify(l));

  const cli = table(
    [['NAME', 'N', 'STATUS'], ...names.map((n, i) => [n, String(i), 'READY'])],
    undefined as never,
  ).split('\n');
  const col = (l: string) => width(l.slice(0, l.indexOf(l.includes('READY') ? 'READY' : 'STATUS')));
  t.is(new Set(cli.map(col)).size, 1, cli.join('\n'));

  const review: Review = {
    root: '/r',
    rows: names.map((n, i) => ({
      path: `/r/${n}`,
      relPath: n,
      format: i % 2 ? 'markdown' : null,
      size: 1000 * i,
      status: i % 2 ? 'new' : 'skipped',
      ...(i % 2 ? {} : { reason: 'unsupported-format' as const, explanation: 'x' }),
    })),
    removed: [],
    summary: {
      visited: names.length,
      toIndex: { new: 3, changed: 0 },
      unchanged: 0,
      removed: 0,
      skipped: { 'unsupported-format': 3 },
      formats: { markdown: { count: 3, bytes: 9000 } },
      acceptedBytes: 9000,
    },
  } as unknown as Review;
  const rows = reviewToLines(review, 'folder').slice(1, names.length + 2);
  const noteCol = (l: string) => {
    const i = l.search(/unsupported-format:|NOTE/);
    return i < 0 ? undefined : width(l.slice(0, i));
  };
  t.is(new Set(rows.map(noteCol).filter((x) => x !== undefined)).size, 1, rows.join('\n'));
});
