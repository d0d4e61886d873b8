// What an extraction child that died without answering means for its document (pure).

import { type ChildExit, classifyExit, HEAP_EXHAUSTED } from './pdf-outcome.js';
import type { WorkerFailure, WorkerTask } from './worker-protocol.js';

export function classifyDeath(kind: WorkerTask['kind'], x: ChildExit): WorkerFailure {
  if (kind === 'pdf') return classifyExit(x);
  const what = kind === 'html' ? 'HTML conversion' : '.docx extraction';
  if (x.timedOut) {
    return {
      skipReason: 'extract-limit',
      reason: `${what} exceeded ${x.timeoutMs} ms; the extractor was stopped`,
    };
  }
  if (HEAP_EXHAUSTED.test(x.stderr)) {
    return {
      skipReason: 'extract-limit',
      reason: `${what} exceeded the ${x.heapMb} MiB memory cap; the extractor was stopped`,
    };
  }
  if (x.rssExceeded) {
    return {
      skipReason: 'extract-limit',
      reason: `${what} used more than ${x.rssMb} MiB of memory; the extractor was stopped`,
    };
  }
  const how = x.signal ? `signal ${x.signal}` : `exit code ${x.code}`;
  return kind === 'html'
    ? { skipReason: 'html-invalid', reason: `the HTML converter stopped without a result (${how})` }
    : {
        skipReason: 'docx-invalid',
        reason: `not a readable .docx (the extractor stopped without a result, ${how})`,
      };
}
