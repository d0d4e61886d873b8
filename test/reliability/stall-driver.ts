// Child process of the lock suite: a real "Update now" (runSync) that pauses in its review step
// (after the scan, holding the store lock) until the parent says 'continue'. The parent SIGSTOPs
// it there past the lock's stale bound, lets another job take the store over and activate, then
// SIGCONTs it: the job must notice it lost the lock and must not activate its snapshot.
//
// Environment: KORTTY_HOME, REL_STORE_ID, REL_STALE_MS. IPC: → 'scanned'; ← 'continue';
// → {t:'done', ok} | {t:'done', code, message}.

import { isKorttyError } from '../../src/errors.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { runSync } from '../../src/store/index-job.js';
import { loadStore } from '../../src/store/store-config.js';

const home = process.env.KORTTY_HOME!;
const storeId = process.env.REL_STORE_ID!;
const send = (m: unknown) => new Promise<void>((r) => process.send!(m as never, undefined, {}, () => r()));

const cfg = await loadStore(storeId, home);
try {
  await runSync({
    storeId,
    home,
    sourceIds: cfg.sources.map((s) => s.id),
    ports: createDefaultPorts(home),
    lockStaleMs: Number(process.env.REL_STALE_MS),
    confirm: async () => {
      await send('scanned');
      await new Promise<void>((r) => process.once('message', () => r()));
      return true;
    },
  });
  await send({ t: 'done', ok: true });
} catch (err) {
  await send({ t: 'done', code: isKorttyError(err) ? err.code : 'RAW', message: (err as Error).message });
}
process.exit(0);
