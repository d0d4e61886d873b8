// CLI for the scripted OpenAI-compatible server, for tests that drive `kortty-rag ask` from another
// process (tmux popups). Prints the base URL (`http://127.0.0.1:PORT/v1`) as one line on stdout.
//
//   node dist/test/helpers/fake-openai-main.js [--port N] [--url-file F] [--record F.jsonl]
//        [--template 'Answer {marker}'] [--no-context TEXT] [--reply TEXT] [--tool-first]
//        [--api-key KEY] [--fail STATUS] [--split BYTES] [--delay-ms MS]
//        [--hostile endless|no-blank-line|huge-event]
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  createFakeOpenAI,
  defaultReply,
  type FakeReply,
  HOSTILE_MODES,
  type HostileMode,
} from './fake-openai.js';

const hostileMode = (v: string | undefined): HostileMode | undefined => {
  if (v === undefined) return undefined;
  if (!(HOSTILE_MODES as readonly string[]).includes(v)) throw new Error(`--hostile ${v}: unknown mode`);
  return v as HostileMode;
};

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    'url-file': { type: 'string' },
    record: { type: 'string' },
    template: { type: 'string' },
    'no-context': { type: 'string' },
    reply: { type: 'string' },
    'tool-first': { type: 'boolean', default: false },
    'api-key': { type: 'string' },
    fail: { type: 'string' },
    split: { type: 'string' },
    'delay-ms': { type: 'string' },
    hostile: { type: 'string' },
  },
});

const server = await createFakeOpenAI({
  port: Number(values.port),
  host: values.host,
  apiKey: values['api-key'],
  split: values.split ? Number(values.split) : 'events',
  delayMs: values['delay-ms'] ? Number(values['delay-ms']) : 1,
  reply: (body): FakeReply => {
    // One JSON line per request, so another process can assert what the model was sent.
    if (values.record) appendFileSync(values.record, `${JSON.stringify(body)}\n`);
    if (values.fail) return { status: Number(values.fail) };
    const hostile = hostileMode(values.hostile);
    if (hostile) return { hostile };
    if (values.reply !== undefined) return values.reply;
    return defaultReply(body, {
      template: values.template,
      noContext: values['no-context'],
      toolFirst: values['tool-first'],
    });
  },
});

if (values['url-file']) {
  // Written whole then renamed: a poller never sees half a URL.
  writeFileSync(`${values['url-file']}.tmp`, `${server.url}\n`);
  renameSync(`${values['url-file']}.tmp`, values['url-file']);
}
process.stdout.write(`${server.url}\n`);

const stop = () => {
  server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
