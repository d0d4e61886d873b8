import test from 'ava';
import { lastCommandPreview, prepareLastCommand } from '../../src/app/ask-last.js';

const base = { exitCode: 1, truncated: false, marks: true };

test('secrets in the command line and the output are redacted and counted together', (t) => {
  const p = prepareLastCommand({
    ...base,
    command: "curl -H 'Authorization: Bearer abcdef0123456789' https://api.example.com",
    output:
      '> Authorization: Bearer abcdef0123456789\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n',
  });
  t.false(JSON.stringify(p.capture).includes('abcdef0123456789'));
  t.false(p.capture.output.includes('wJalrXUtnFEMI'));
  t.deepEqual(p.redactions, [
    { kind: 'Authorization header', count: 2 },
    { kind: 'AWS secret', count: 1 },
  ]);
  t.is(p.summary, '3 secrets redacted: Authorization header ×2, AWS secret');
  t.is(p.capture.exitCode, 1);
  t.true(p.capture.marks);
  const clean = prepareLastCommand({ ...base, command: 'ls', output: 'a\nb\n' });
  t.deepEqual(clean.redactions, []);
  t.is(clean.summary, '');
  t.is(clean.capture.output, 'a\nb\n');
});

test('the preview shows the command, exit code, last lines and redactions, escape sequences as text', (t) => {
  const output = `${Array.from({ length: 8 }, (_, i) => `line ${i}`).join('\n')}\n\x1b]52;c;cm0=\x07\x1b[31mred\x1b[0m\nDB_PASSWORD=hunter22\n`;
  const lines = lastCommandPreview(
    prepareLastCommand({ ...base, exitCode: 2, command: 'make\x1b[2J', output, note: 'cut\rhere' }),
  );
  t.deepEqual(lines, [
    'Last command: $ make\\x1b[2J  (exit 2)',
    '  … 5 lines above',
    '  line 5',
    '  line 6',
    '  line 7',
    '  \\x1b]52;c;cm0=\\x07\\x1b[31mred\\x1b[0m',
    '  DB_PASSWORD=[redacted]',
    '1 secret redacted: password',
    'Note: cut\\x0dhere',
  ]);
  for (const l of lines) t.false(/[\x00-\x08\x0b-\x1f\x7f]/.test(l), l);
  t.deepEqual(
    lastCommandPreview(
      prepareLastCommand({ ...base, exitCode: null, command: 'true', output: '', truncated: false }),
    ),
    ['Last command: $ true  (exit code not known)', '  (no output)'],
  );
  t.deepEqual(
    lastCommandPreview(
      prepareLastCommand({ ...base, command: 'seq 9', output: '7\n8\n9\n', truncated: true }),
    ),
    ['Last command: $ seq 9  (exit 1)', '  … output cut to its last lines', '  7', '  8', '  9'],
  );
  const long = lastCommandPreview(prepareLastCommand({ ...base, command: 'x', output: 'y'.repeat(500) }));
  t.is(long[1], `  ${'y'.repeat(160)}…`);
});
