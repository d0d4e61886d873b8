import test from 'ava';
import { detectFormat, unsupportedReason } from '../../src/scan/formats.js';
import { useTempHome } from './tree.js';

useTempHome();

test('allowlisted suffixes are recognised case-insensitively', (t) => {
  const cases: [string, string, string][] = [
    ['notes.txt', 'text', 'text'],
    ['README.MD', 'markdown', 'text'],
    ['guide.RsT', 'restructuredtext', 'text'],
    ['book.ADOC', 'asciidoc', 'text'],
    ['server.LOG', 'log', 'text'],
    ['data.CSV', 'csv', 'text'],
    ['data.tsv', 'tsv', 'text'],
    ['x.JSON', 'json', 'text'],
    ['events.jsonl', 'jsonl', 'text'],
    ['ci.YML', 'yaml', 'text'],
    ['Cargo.toml', 'toml', 'text'],
    ['setup.cfg', 'ini', 'text'],
    ['nginx.conf', 'ini', 'text'],
    ['pom.XML', 'xml', 'text'],
    ['index.HTML', 'html', 'html'],
    ['page.htm', 'html', 'html'],
    ['main.C', 'c', 'text'],
    ['lib.hpp', 'cpp', 'text'],
    ['Program.cs', 'csharp', 'text'],
    ['main.go', 'go', 'text'],
    ['lib.rs', 'rust', 'text'],
    ['APP.PY', 'python', 'text'],
    ['x.rb', 'ruby', 'text'],
    ['x.mjs', 'javascript', 'text'],
    ['x.d.ts', 'typescript', 'text'],
    ['View.TSX', 'typescript', 'text'],
    ['Main.java', 'java', 'text'],
    ['a.kt', 'kotlin', 'text'],
    ['a.swift', 'swift', 'text'],
    ['a.php', 'php', 'text'],
    ['a.pl', 'perl', 'text'],
    ['a.lua', 'lua', 'text'],
    ['a.R', 'r', 'text'],
    ['a.scala', 'scala', 'text'],
    ['q.SQL', 'sql', 'text'],
    ['run.sh', 'shell', 'text'],
    ['run.BASH', 'shell', 'text'],
    ['rc.zsh', 'shell', 'text'],
    ['conf.fish', 'shell', 'text'],
    ['Build.PS1', 'powershell', 'text'],
    ['Dockerfile', 'dockerfile', 'text'],
    ['dockerfile.dev', 'dockerfile', 'text'],
    ['Dockerfile.Prod', 'dockerfile', 'text'],
    ['Makefile', 'makefile', 'text'],
    ['GNUmakefile', 'makefile', 'text'],
    ['Jenkinsfile', 'build-script', 'text'],
    ['CMakeLists.txt', 'cmake', 'text'],
    ['LICENSE', 'text', 'text'],
    ['paper.PDF', 'pdf', 'pdf'],
    ['letter.DOCX', 'docx', 'docx'],
  ];
  for (const [name, id, extract] of cases) {
    const f = detectFormat(name);
    t.is(f?.id, id, name);
    t.is(f?.extract as string | undefined, extract, name);
  }
});

test('unsupported formats are not detected and the reason names the kind', (t) => {
  const cases: [string, RegExp][] = [
    ['budget.xlsx', /^Office document \(\.xlsx\) is not indexed in v1$/],
    ['slides.PPTX', /^Office document \(\.pptx\)/],
    ['report.odt', /^Office document \(\.odt\)/],
    ['old.doc', /only Word \.docx files are/],
    ['photo.JPG', /^image \(\.jpg\)/],
    ['backup.tar.gz', /^archive \(\.gz\)/],
    ['app.sqlite', /^database \(\.sqlite\)/],
    ['song.mp3', /^audio \(\.mp3\)/],
    ['clip.mkv', /^video \(\.mkv\)/],
    ['tool.exe', /^executable or binary \(\.exe\)/],
    ['model.gguf', /^model weights \(\.gguf\)/],
    ['thing.xyz', /^unrecognised file type \(\.xyz\)/],
    ['NOSUFFIX', /no recognised suffix/],
  ];
  for (const [name, re] of cases) {
    t.is(detectFormat(name), null, name);
    t.regex(unsupportedReason(name), re, name);
  }
});
