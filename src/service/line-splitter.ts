// Splits a byte stream into newline-terminated lines without ever holding more than `maxBytes`
// of one line: an over-long line is reported once and its bytes are dropped up to its newline, so
// a peer cannot make us buffer without bound and the next line is read normally. Pure.

export type LineEvent = { line: string } | { overflow: true };

export interface LineSplitter {
  push(chunk: Buffer): LineEvent[];
  /** Bytes of an unfinished line currently held. */
  readonly pending: number;
}

export function createLineSplitter(maxBytes: number): LineSplitter {
  let parts: Buffer[] = [];
  let size = 0;
  let discarding = false;
  return {
    get pending() {
      return size;
    },
    push(chunk) {
      const out: LineEvent[] = [];
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        const end = nl < 0 ? chunk.length : nl;
        if (!discarding) {
          if (size + (end - start) > maxBytes) {
            out.push({ overflow: true });
            parts = [];
            size = 0;
            discarding = true;
          } else if (end > start) {
            parts.push(chunk.subarray(start, end));
            size += end - start;
          }
        }
        if (nl < 0) break;
        if (!discarding) {
          const line = Buffer.concat(parts, size).toString('utf8').replace(/\r$/, '');
          out.push({ line });
        }
        parts = [];
        size = 0;
        discarding = false;
        start = nl + 1;
      }
      return out;
    },
  };
}
