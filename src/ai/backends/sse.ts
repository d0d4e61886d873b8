// Server-sent events parser (WHATWG "event stream" grammar), fed raw bytes in whatever pieces the
// network delivers: a UTF-8 character, a CRLF pair or a `data:` prefix may be split across pushes.
// Ours rather than eventsource-parser: its current major needs Node 22, and the Node 20 line takes
// strings only and drops an event left without its final blank line; wrapping it for that would
// take about as many lines as this parser (README, Dependencies).

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

export interface SseParser {
  /** Feed the next piece of the byte stream; returns the events it completed. */
  push(chunk: Uint8Array | string): SseEvent[];
  /** The stream ended: flush the decoder and return a final event left without its blank line. */
  end(): SseEvent[];
}

/**
 * The most characters one event may hold (its unfinished line plus its `data:` lines so far). A
 * chat-completion chunk is a few hundred characters; a server that never ends a line, or never
 * sends the blank line that ends an event, would otherwise grow memory without bound.
 */
export const MAX_SSE_EVENT_CHARS = 1024 * 1024;

/** An event (or line) grew past the cap: the stream must be abandoned. */
export class SseLimitError extends Error {
  constructor(readonly cap: number) {
    super(
      `an event-stream event longer than ${cap} characters (the per-event cap; a line or event without its end?)`,
    );
  }
}

export function createSseParser(opts: { maxEventLength?: number } = {}): SseParser {
  const maxEvent = opts.maxEventLength ?? MAX_SSE_EVENT_CHARS;
  const decoder = new TextDecoder('utf-8');
  let buf = '';
  // Characters in the current event's `data:` lines.
  let dataChars = 0;
  // A CR ended the previous line; an LF right after it belongs to the same terminator.
  let skipLF = false;
  let data: string[] = [];
  let eventType = '';
  let lastId: string | undefined;

  function dispatch(out: SseEvent[]): void {
    if (data.length > 0) {
      const ev: SseEvent = { event: eventType || 'message', data: data.join('\n') };
      if (lastId !== undefined) ev.id = lastId;
      out.push(ev);
    }
    data = [];
    dataChars = 0;
    eventType = '';
  }

  function line(text: string, out: SseEvent[]): void {
    if (text === '') {
      dispatch(out);
      return;
    }
    if (text.startsWith(':')) return; // comment / keep-alive
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      dataChars += value.length + 1;
      if (dataChars > maxEvent) throw new SseLimitError(maxEvent);
      data.push(value);
    } else if (field === 'event') eventType = value;
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    // `retry` and unknown fields are ignored, as the grammar says.
  }

  function drain(out: SseEvent[]): void {
    const eol = /[\r\n]/g;
    let pos = 0;
    while (pos < buf.length) {
      if (skipLF) {
        skipLF = false;
        if (buf[pos] === '\n') {
          pos++;
          continue;
        }
      }
      eol.lastIndex = pos;
      const m = eol.exec(buf);
      if (!m) break;
      const end = m.index;
      if (buf[end] === '\r') skipLF = true;
      line(buf.slice(pos, end), out);
      pos = end + 1;
    }
    buf = buf.slice(pos);
    if (buf.length + dataChars > maxEvent) throw new SseLimitError(maxEvent);
  }

  return {
    push(chunk) {
      const out: SseEvent[] = [];
      const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      // One huge piece is cut before it is joined, so the check below never needs its whole copy.
      for (let p = 0; p < text.length; p += maxEvent) {
        buf += text.slice(p, p + maxEvent);
        drain(out);
      }
      return out;
    },
    end() {
      const out: SseEvent[] = [];
      buf += decoder.decode();
      drain(out);
      if (buf !== '') line(buf, out);
      buf = '';
      // Lenient: some servers close right after the last `data:` line without the blank line.
      dispatch(out);
      return out;
    },
  };
}
