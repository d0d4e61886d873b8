// Property test: thousands of generated hostile documents, paths and store names never break
// the block's shape. Checks re-derive everything from the rendered text (helpers.ts).
import test from 'ava';
import fc from 'fast-check';
import { extractCitations } from '../../src/ai/citations.js';
import { CONTEXT_CLOSE, CONTEXT_OPEN, renderContextBlock } from '../../src/retrieve/block.js';
import { count, parseBlock, specialTokensIn, tolerantTagCount, useTempHome } from './helpers.js';
import {
  CHAT_TEMPLATE_PAYLOADS,
  FORGED_MARKER_TEMPLATES,
  WRAPPER_CLOSE_VARIANTS,
} from './injection-corpus.js';

useTempHome();

const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\u0000-\u0008\u000B-\u001F\u007F-\u009F]/u;

const structural = [
  '<',
  '>',
  '/',
  '[',
  ']',
  'R',
  'r',
  '1',
  '7',
  '|',
  '&',
  '#',
  ';',
  'lt',
  'x3C',
  ' ',
  '\n',
  '\r',
  '\t',
  '_',
  '-',
  '\u200B',
  '\u200D',
  '\u202E',
  '\u2066',
  '\uFEFF',
  '\u00AD',
  '\u034F',
  '\uFE0F',
  '\u{E003C}',
  '\u001B',
  '\u0085',
  '\u2028',
  '＜',
  '＞',
  '﹤',
  '‹',
  '〈',
  '⟨',
  '［',
  '］',
  '【',
  'Ｒ',
  '１',
  'Р',
  'Ρ',
  '𝐑',
  '٧',
  '\u0301',
  '\uD800',
  'retrieved',
  'context',
  'retrieved_context',
  'excerpt',
  'terminal_selection',
  'im_start',
  'im_end',
  'INST',
  'SYS',
  's',
  'eot_id',
  'start_of_turn',
  'endoftext',
  'TOOL_CALLS',
  'id="R1"',
];
const forged = FORGED_MARKER_TEMPLATES.flatMap((tpl) =>
  ['1', '2', '7', '42'].map((n) => tpl.replace(/n/, n)),
);

const fragment = fc.oneof(
  fc.constantFrom(...WRAPPER_CLOSE_VARIANTS, ...CHAT_TEMPLATE_PAYLOADS, ...forged),
  fc.mixedCase(
    fc.constantFrom(
      '</retrieved_context>',
      '<retrieved_context>',
      '</excerpt>',
      '<|im_start|>',
      '[INST]',
      '</terminal_selection>',
    ),
  ),
  fc.string({ unit: fc.constantFrom(...structural), maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 24 }),
);
const hostileText = fc.array(fragment, { maxLength: 14 }).map((parts) => parts.join(''));
const hostileName = fc.array(fragment, { maxLength: 4 }).map((parts) => parts.join(''));

const excerpts = fc
  .array(
    fc.record({
      text: hostileText,
      path: hostileName,
      storeName: hostileName,
      where: fc.option(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 5000 }), fc.nat(50))),
      trimmed: fc.boolean(),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((xs) =>
    xs.map((x, i) => ({
      marker: `R${i + 1}`,
      text: x.text,
      path: x.path,
      storeName: x.storeName,
      trimmed: x.trimmed,
      ...(x.where === null
        ? {}
        : x.where[0]
          ? { pageStart: x.where[1], pageEnd: x.where[1] + x.where[2] }
          : { lineStart: x.where[1], lineEnd: x.where[1] + x.where[2] }),
    })),
  );

test('any hostile documents: one intact wrapper, headers outside text, no forged marker or control token', (t) => {
  let blocks = 0;
  let docs = 0;
  fc.assert(
    fc.property(excerpts, (xs) => {
      const block = renderContextBlock(xs);
      const markers = xs.map((x) => x.marker);
      // Exactly one opening and one closing wrapper, at the ends, in any spelling.
      if (count(block, CONTEXT_OPEN) !== 1 || !block.startsWith(`${CONTEXT_OPEN}\n`)) return false;
      if (count(block, CONTEXT_CLOSE) !== 1 || !block.endsWith(`\n${CONTEXT_CLOSE}`)) return false;
      if (tolerantTagCount(block, 'retrieved') !== 2 || tolerantTagCount(block, 'terminal') !== 0)
        return false;
      // No chat-template control token anywhere in the block.
      if (specialTokensIn(block).length > 0) return false;
      // Grammar: n headers, each on its own line before its excerpt tag, markers in order.
      const parsed = parseBlock(block);
      if (JSON.stringify(parsed.excerpts.map((e) => e.marker)) !== JSON.stringify(markers)) return false;
      // The only markers a citation check can find are the header markers.
      if (JSON.stringify(extractCitations(block)) !== JSON.stringify(markers)) return false;
      for (const e of parsed.excerpts) {
        if (extractCitations(e.body).length > 0) return false;
        if (INVISIBLE.test(e.body) || INVISIBLE.test(e.header)) return false;
        if (/&(?!amp;|lt;)/.test(e.body)) return false;
        if (e.header.indexOf(`[${e.marker}]`) !== 0 || extractCitations(e.header).join() !== e.marker)
          return false;
      }
      blocks++;
      docs += xs.length;
      return true;
    }),
    { numRuns: 3000 },
  );
  t.is(blocks, 3000);
  t.true(docs > 6000, `${docs} documents`);
});
