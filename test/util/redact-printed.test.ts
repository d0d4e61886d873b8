import test from 'ava';
import { redactionSummary, redactPrintedSecrets } from '../../src/util/redact-printed.js';

// Secrets as real commands print them: each case is a line of output, the secret in it, what
// must survive around it, and the kind reported.
const CASES: { name: string; line: string; secret: string; kept: string[]; kind: string }[] = [
  {
    name: 'curl -v request header',
    line: '> Authorization: Bearer eyAbCdEf0123456789.tok-en_value',
    secret: 'eyAbCdEf0123456789.tok-en_value',
    kept: ['> Authorization: Bearer '],
    kind: 'Authorization header',
  },
  {
    name: 'Basic auth header',
    line: 'Authorization: Basic dXNlcjpodW50ZXIy',
    secret: 'dXNlcjpodW50ZXIy',
    kept: ['Authorization: Basic '],
    kind: 'Authorization header',
  },
  {
    name: 'Digest auth header (rest of the line)',
    line: 'authorization: Digest username="bob", response="6629fae49393a05397450978507c4ef1"',
    secret: '6629fae49393a05397450978507c4ef1',
    kept: ['authorization: '],
    kind: 'Authorization header',
  },
  {
    name: 'proxy header',
    line: '> Proxy-Authorization: Basic cHJveHk6c2VjcmV0cGFzcw==',
    secret: 'cHJveHk6c2VjcmV0cGFzcw==',
    kept: ['Proxy-Authorization: Basic '],
    kind: 'Proxy-Authorization header',
  },
  {
    name: 'clone URL with credentials',
    line: "fatal: unable to access 'https://bob:hunter2secret@git.example.com/repo.git/': 403",
    secret: 'hunter2secret',
    kept: ['https://bob:', '@git.example.com/repo.git/', ': 403'],
    kind: 'URL credentials',
  },
  {
    name: 'token in a query string',
    line: 'GET https://api.example.com/v1/items?page=2&access_token=Zm9vYmFyYmF6cXV4&x=1',
    secret: 'Zm9vYmFyYmF6cXV4',
    kept: ['?page=2&access_token=', '&x=1'],
    kind: 'URL token',
  },
  {
    name: 'AWS secret in env output',
    line: 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    kept: ['AWS_SECRET_ACCESS_KEY='],
    kind: 'AWS secret',
  },
  {
    name: 'AWS credentials file',
    line: 'aws_secret_access_key = abcdEFGHijklMNOPqrstUVWXyz0123456789+/ab',
    secret: 'abcdEFGHijklMNOPqrstUVWXyz0123456789+/ab',
    kept: ['aws_secret_access_key = '],
    kind: 'AWS secret',
  },
  {
    name: 'AWS session token',
    line: 'export AWS_SESSION_TOKEN="FwoGZXIvYXdzEJr//////////wEaDJq"',
    secret: 'FwoGZXIvYXdzEJr//////////wEaDJq',
    kept: ['export AWS_SESSION_TOKEN='],
    kind: 'AWS session token',
  },
  {
    name: '*_TOKEN variable',
    line: 'CI_JOB_TOKEN=64_abcdefghijklmnop',
    secret: '64_abcdefghijklmnop',
    kept: ['CI_JOB_TOKEN='],
    kind: 'token',
  },
  {
    name: '*_PASSWORD variable (set -x trace)',
    line: "+ DB_PASSWORD='s3cr3t pass'",
    secret: 's3cr3t pass',
    kept: ['+ DB_PASSWORD='],
    kind: 'password',
  },
  {
    name: '*_SECRET in JSON',
    line: '{"client_secret": "c9f1e2d3b4a5968778695a4b3c2d1e0f", "id": 7}',
    secret: 'c9f1e2d3b4a5968778695a4b3c2d1e0f',
    kept: ['{"client_secret": ', ', "id": 7}'],
    kind: 'secret',
  },
  {
    name: 'password in YAML',
    line: '  password: correcthorsebattery',
    secret: 'correcthorsebattery',
    kept: ['  password: '],
    kind: 'password',
  },
  {
    name: 'GitHub token',
    line: 'remote: Invalid token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 for user',
    secret: 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789',
    kept: ['remote: Invalid token ', ' for user'],
    kind: 'GitHub token',
  },
  {
    name: 'GitHub fine-grained token',
    line: 'token: github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
    secret: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
    kept: [],
    kind: 'GitHub token',
  },
  {
    name: 'GitLab token',
    line: 'using glpat-AbCdEfGhIjKlMnOpQrStUv to push',
    secret: 'glpat-AbCdEfGhIjKlMnOpQrStUv',
    kept: ['using ', ' to push'],
    kind: 'GitLab token',
  },
  {
    name: 'Slack token',
    line: 'slack: posting with xoxb-1234567890-0987654321-AbCdEfGhIjKl failed',
    secret: 'xoxb-1234567890-0987654321-AbCdEfGhIjKl',
    kept: ['slack: posting with ', ' failed'],
    kind: 'Slack token',
  },
  {
    name: 'OpenAI-style key',
    line: 'Incorrect API key provided: sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345.',
    secret: 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345',
    kept: ['Incorrect API key provided: ', '.'],
    kind: 'OpenAI-style key',
  },
];

for (const c of CASES) {
  test(`redacts: ${c.name}`, (t) => {
    const input = `before\n${c.line}\nafter\n`;
    const { text, redactions } = redactPrintedSecrets(input);
    t.false(text.includes(c.secret), text);
    t.true(text.includes('[redacted]'), text);
    for (const k of c.kept) t.true(text.includes(k), `kept ${k}: ${text}`);
    t.true(text.startsWith('before\n') && text.endsWith('\nafter\n'), text);
    t.deepEqual(
      redactions.map((r) => r.kind),
      [c.kind],
    );
  });
}

test('a private key block is removed, also when the output bound cut its END line', (t) => {
  const body = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\nc2gtZWQyNTUxOQAAACB';
  const whole = `$ cat id\n-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----\nok\n`;
  const r = redactPrintedSecrets(whole);
  t.false(r.text.includes('b3BlbnNzaC1rZXktdjEAAAAA'));
  t.true(r.text.includes('-----BEGIN OPENSSH PRIVATE KEY-----'));
  t.true(r.text.endsWith('-----END OPENSSH PRIVATE KEY-----\nok\n'), r.text);
  t.deepEqual(r.redactions, [{ kind: 'private key', count: 1 }]);
  const cut = redactPrintedSecrets(`-----BEGIN RSA PRIVATE KEY-----\n${body}`);
  t.is(cut.text, '-----BEGIN RSA PRIVATE KEY-----[redacted]');
});

test('escape sequences and invisible characters cannot split a secret past the patterns', (t) => {
  const split = 'token ghp_aBcDeFgHiJ\x1b[0mkLmNoPqRsTuV\u200bwXyZ0123456789 \x1b[31mred\x1b[0m\n';
  const r = redactPrintedSecrets(split);
  t.is(r.text, 'token [redacted] \x1b[31mred\x1b[0m\n', 'the escapes outside the secret are kept');
  t.deepEqual(r.redactions, [{ kind: 'GitHub token', count: 1 }]);
  const header = redactPrintedSecrets('\x1b[1mAuthorization:\x1b[0m Bearer abc\x1b]0;x\x07def123\n');
  t.false(header.text.includes('def123'));
  t.false(header.text.includes('abc'));
});

test('ordinary output is left alone, byte for byte', (t) => {
  const plain = [
    "ls: cannot access '/nonexistent': No such file or directory",
    'error: invalid token: expired',
    'Enter password:',
    'https://example.com/docs?page=2#section',
    'http://localhost:8080/path@v2',
    'git@github.com:owner/repo.git',
    'PASSWORD=',
    'the key is in the drawer; sk-short',
    '\x1b[31mFAILED\x1b[0m 3 tests',
  ].join('\n');
  const r = redactPrintedSecrets(plain);
  t.is(r.text, plain);
  t.deepEqual(r.redactions, []);
});

test('counts per kind and the popup summary', (t) => {
  const r = redactPrintedSecrets(
    [
      'Authorization: Bearer abcdefabcdef',
      'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'Authorization: Bearer 0123456789ab',
    ].join('\n'),
  );
  t.deepEqual(r.redactions, [
    { kind: 'Authorization header', count: 2 },
    { kind: 'AWS secret', count: 1 },
  ]);
  t.is(redactionSummary(r.redactions), '3 secrets redacted: Authorization header ×2, AWS secret');
  t.is(redactionSummary([{ kind: 'JWT', count: 1 }]), '1 secret redacted: JWT');
  t.is(redactionSummary([]), '');
});

test('redacting twice changes nothing more', (t) => {
  const once = redactPrintedSecrets('Authorization: Bearer abcdefabcdef\nDB_PASSWORD=x1y2z3\n');
  const twice = redactPrintedSecrets(once.text);
  t.is(twice.text, once.text);
  t.deepEqual(twice.redactions, []);
});
