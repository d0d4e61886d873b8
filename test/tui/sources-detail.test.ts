import test from 'ava';
import type { StoreConfig } from '../../src/store/store-types.js';
import { initialState } from '../../src/tui/state.js';
import { lineText } from '../../src/tui/styled.js';
import { sourcesPane } from '../../src/tui/views/sources-view.js';

test('the source details show the last update’s embedded and reused chunks', (t) => {
  const store: StoreConfig = {
    version: 1,
    id: 'docs',
    name: 'Docs',
    type: 'local',
    modelId: 'kortty-lexical-starter',
    fingerprint: {
      modelId: 'kortty-lexical-starter',
      fileName: 'x',
      fileSize: 1,
      fileSha256: 'a',
      dimension: 384,
      pooling: 'mean',
      documentPrefix: '',
      queryPrefix: '',
    },
    roles: [],
    autonomous: false,
    chunk: { chunkTokens: 800, overlapTokens: 120 },
    sources: [
      {
        id: 's1',
        path: '/home/u/notes',
        kind: 'folder',
        sync: 'manual',
        enabled: true,
        options: { maxFileBytes: 1 << 20, include: [], exclude: [], gitignore: true },
        status: 'READY',
        files: 3,
        chunks: 40,
        problems: 0,
        problemList: [],
        skipped: 0,
        skippedList: [],
        hashes: {},
        lastChunksEmbedded: 2,
        lastChunksReused: 38,
      },
    ],
    createdAt: '2025-01-01T00:00:00Z',
  };
  const state = {
    ...initialState({ width: 140, height: 20 }, 'default', 'dark'),
    stores: [store],
    loaded: true,
  };
  const text = sourcesPane({ state, hints: [], key: (a) => a, now: 0 }, 140, 12)
    .map(lineText)
    .join('\n');
  t.regex(text, /last update: 2 chunks embedded, 38 reused/);
});
