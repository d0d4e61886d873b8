import test from 'ava';
import { capText, renderManPage } from '../../bench/man-pages.js';

// The troff reader behind the crowding evaluation's man-page store (bench/man-pages.ts).

test('a man page renders to its words: headings, options, fonts and escapes dropped or spelled', (t) => {
  const troff = [
    '.\\" a comment that must not show',
    '.TH TAR 1 "July 13, 2020" "TAR" "GNU TAR Manual"',
    '.SH NAME',
    'tar \\- an archiving utility',
    '.SH "SEE ALSO"',
    '.TP',
    '\\fB\\-t\\fR, \\fB\\-\\-list\\fR',
    'List the contents of an archive\\(em without extracting.',
    '.BR gzip (1),',
    '.IP \\(bu 2',
    'base64 [\\fI\\,OPTION\\/\\fR]... it\\(aqs \\*(lqquoted\\*(rq',
    '.nf',
    '.RS 4',
  ].join('\n');
  t.is(
    renderManPage(troff),
    "TAR(1)\n\nNAME\ntar - an archiving utility\n\nSEE ALSO\n\n-t, --list\nList the contents of an archive- without extracting.\ngzip(1),\n\n*\nbase64 [OPTION]... it's quoted\n",
  );
  t.is(renderManPage('.so man1/other.1\n'), undefined, 'a redirect is no page');
});

test('long pages are cut at a line end', (t) => {
  const text = `${'a'.repeat(10)}\n${'b'.repeat(10)}\n${'c'.repeat(10)}\n`;
  t.is(capText(text, 25), `${'a'.repeat(10)}\n${'b'.repeat(10)}\n`);
  t.is(capText(text, 100), text);
});
