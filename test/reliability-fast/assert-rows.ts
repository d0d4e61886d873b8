import type { ExecutionContext } from 'ava';
import type { SuiteRow } from '../reliability/common.js';

/** Every row ran trials and none failed; failures are shown with their first messages. */
export function assertRows(t: ExecutionContext, rows: readonly SuiteRow[], minRows: number): void {
  t.true(rows.length >= minRows, `${rows.length} result rows`);
  for (const r of rows) {
    t.true(r.trials > 0, `${r.test}: no trials ran`);
    t.is(r.failures, 0, `${r.test}:\n${r.errors.join('\n---\n')}`);
  }
}
