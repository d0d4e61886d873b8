import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { storeDir } from '../../src/storage/paths.js';
import { homeWithStarter } from '../helpers/store-env.js';
import { connect, initialize, makeStore, rawServer } from './harness.js';

// Agent CLIs print what an MCP tool returns in the user's terminal. Hostile store names, paths,
// markers, modes and tool names (OSC 52 clipboard writes, OSC 0 title changes, 8-bit CSI clears)
// sent through every tool of the real `kortty-rag mcp` by the SDK's own client, and as raw lines
// the SDK would never send: no string of any answer holds a control byte but newline and tab.

const HOSTILE = '\u001b]52;c;cHduZWQ=\u0007\u001b]0;PWNED\u0007\u009b2J\u001b[31m\r\u0085';
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Every string inside a value (keys too), with where it sits. */
function strings(v: unknown, at = '$'): [string, string][] {
  if (typeof v === 'string') return [[at, v]];
  if (Array.isArray(v)) return v.flatMap((x, i) => strings(x, `${at}[${i}]`));
  if (v !== null && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => [
      [`${at} key`, k] as [string, string],
      ...strings(x, `${at}.${k}`),
    ]);
  return [];
}

function assertClean(t: import('ava').ExecutionContext, what: string, v: unknown) {
  const all = strings(v);
  t.true(all.length > 0, what);
  for (const [at, s] of all) t.false(CONTROL.test(s), `${what}: ${at} holds ${JSON.stringify(s)}`);
}

let home: string;
let root: string;

test.before(async () => {
  home = await homeWithStarter();
  root = await makeStore(
    home,
    'Notes',
    {
      'kiwi.md': 'The kiwi orchard irrigation runs at dawn.\n',
      [`evil${HOSTILE.replace(/[\r/]/g, '')}.md`]: `kiwi ${HOSTILE} orchard\n`,
    },
    { autonomous: true },
  );
  // A damaged store.json whose text is hostile: named in warnings, never shown raw.
  await mkdir(storeDir('broken', home), { recursive: true });
  await writeFile(
    join(storeDir('broken', home), 'store.json'),
    `{"name": "${HOSTILE.replace(/[\u0000-\u001f]/g, '')}`,
  );
});

test('every tool answers hostile arguments with terminal-safe text, errors and structured content', async (t) => {
  const s = await connect(home);
  try {
    const { tools } = await s.client.listTools();
    const names = tools.map((x) => x.name).sort();
    t.deepEqual(names, ['list_stores', 'read_excerpt', 'search_knowledge']);
    // Per tool, the hostile calls it gets; a tool added later without a row fails the check above.
    const calls: Record<string, Record<string, unknown>[]> = {
      list_stores: [{}, { extra: HOSTILE }],
      search_knowledge: [
        { query: HOSTILE, stores: [HOSTILE] },
        { query: `kiwi ${HOSTILE}` },
        { query: 'kiwi', stores: ['Notes', HOSTILE] },
        { query: 'kiwi', mode: HOSTILE },
        { query: HOSTILE, stores: [HOSTILE, 'x'.repeat(10_000)] },
      ],
      read_excerpt: [
        { path: `/${HOSTILE}`, lineStart: 1 },
        { path: join(root, HOSTILE), lineStart: 1, lineEnd: 2 },
        { path: join(root, `evil${HOSTILE.replace(/[\r/]/g, '')}.md`), lineStart: 1 },
        { marker: HOSTILE },
        { marker: 'R1' },
        { marker: 'R99' },
        { path: HOSTILE, marker: 'R1' },
        { path: join(root, 'kiwi.md'), lineStart: 7, lineEnd: 3 },
      ],
    };
    let errors = 0;
    for (const name of names) {
      for (const args of calls[name]!) {
        const what = `${name} ${JSON.stringify(args).slice(0, 80)}`;
        try {
          const res = await s.client.callTool({ name, arguments: args });
          if (res.isError) errors++;
          assertClean(t, what, res);
        } catch (err) {
          errors++;
          assertClean(t, what, { message: (err as Error).message });
        }
      }
    }
    t.true(errors >= 8, `the hostile calls were refused (${errors})`);
    try {
      await s.client.callTool({ name: HOSTILE, arguments: {} });
      t.fail('an unknown tool is refused');
    } catch (err) {
      assertClean(t, 'unknown tool', { message: (err as Error).message });
      t.regex((err as Error).message, /Unknown tool/);
    }
  } finally {
    await s.close();
  }
});

test('raw lines the SDK never sends get terminal-safe answers too', async (t) => {
  const s = rawServer(home);
  try {
    await initialize(s);
    s.send(`{"jsonrpc": "2.0", "id": 7, "method": "${HOSTILE.replace(/[\u0000-\u001f]/g, '')}`);
    s.send(`${HOSTILE}`);
    const parseErrors = await s.request(8, 'tools/call', { name: HOSTILE, arguments: {} });
    const bad = await s.request(9, 'tools/call', {
      name: 'search_knowledge',
      arguments: { query: 1, stores: HOSTILE },
    });
    assertClean(t, 'unknown tool', parseErrors);
    assertClean(t, 'bad arguments', bad);
    const errorsSeen = s.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    t.true(errorsSeen.filter((m) => m.id === null && m.error).length >= 2, s.lines.join('\n'));
    for (const m of errorsSeen) assertClean(t, 'raw answer', m);
  } finally {
    await s.stop();
  }
});
