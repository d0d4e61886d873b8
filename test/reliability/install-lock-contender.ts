// Child process of the model-install lock suite: until REL_DEADLINE, installs the generated
// starter model into REL_HOME with a `generate` step that only logs `enter`, holds for a random
// 2..REL_HOLD_MS ms, logs `exit` and fails (so nothing is ever installed and the next contender
// gets the same critical section). Records go through O_APPEND to REL_LOG, as in lock-contender.
import { appendFileSync } from 'node:fs';
import { installModel } from '../../src/embed/installer.js';
import { STARTER_MODEL_ID } from '../../src/embed/starter-model.js';
import { isKorttyError } from '../../src/errors.js';

const logPath = process.env.REL_LOG!;
const holdMs = Number(process.env.REL_HOLD_MS ?? 30);
const deadline = Number(process.env.REL_DEADLINE);
const now = () => (performance.timeOrigin + performance.now()).toFixed(3);
const record = (what: string) => appendFileSync(logPath, `${what} ${process.pid} - ${now()}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DONE = 'contender: critical section done';

async function main() {
  while (Date.now() < deadline) {
    try {
      await installModel(STARTER_MODEL_ID, {
        home: process.env.REL_HOME!,
        generate: async () => {
          record('enter');
          await sleep(2 + Math.random() * (holdMs - 2));
          record('exit');
          throw new Error(DONE);
        },
      });
      throw new Error('the install completed, which this contender never lets happen');
    } catch (err) {
      if (isKorttyError(err, 'MODEL_BUSY')) await sleep(1 + Math.random() * 4);
      else if ((err as Error)?.message !== DONE) {
        // Reported (the suite fails on it) but the contention goes on.
        appendFileSync(
          logPath,
          `error ${process.pid} ${JSON.stringify(String((err as Error)?.message ?? err))}\n`,
        );
      }
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error)?.stack ?? err}\n`);
    process.exit(1);
  },
);
