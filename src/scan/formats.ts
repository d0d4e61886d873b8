import type { ExtractKind, FormatInfo } from '../types.js';

// The central format allowlist (spec "Supported formats"). Name matching is case-insensitive.
// A recognised name is necessary but not sufficient: content checks (content-check.ts) decide
// whether a text file really is UTF-8 text, and extraction decides whether a PDF has text.

type Entry = [id: string, group: string, extract?: ExtractKind];

const fmt = (id: string, group: string, extract: ExtractKind = 'text'): FormatInfo => ({
  id,
  group,
  extract,
});

function table(rows: Record<string, Entry>): Map<string, FormatInfo> {
  const map = new Map<string, FormatInfo>();
  for (const [suffixes, [id, group, extract]] of Object.entries(rows)) {
    const info = fmt(id, group, extract);
    for (const s of suffixes.split(' ')) map.set(s, info);
  }
  return map;
}

/** Suffix (lower case, without the dot) → format. */
const BY_SUFFIX = table({
  // prose and markup
  'txt text': ['text', 'Text'],
  log: ['log', 'Text'],
  'md markdown mdown mkd mdx': ['markdown', 'Markup'],
  rst: ['restructuredtext', 'Markup'],
  'adoc asciidoc asc': ['asciidoc', 'Markup'],
  org: ['org', 'Markup'],
  'tex latex sty bib': ['latex', 'Markup'],
  'html htm xhtml': ['html', 'Web', 'html'],
  // data and configuration
  csv: ['csv', 'Data'],
  tsv: ['tsv', 'Data'],
  'json json5 jsonc geojson ipynb': ['json', 'Data'],
  'jsonl ndjson': ['jsonl', 'Data'],
  'yaml yml': ['yaml', 'Config'],
  toml: ['toml', 'Config'],
  'ini cfg conf properties editorconfig': ['ini', 'Config'],
  'xml xsd xsl xslt plist rss atom wsdl': ['xml', 'Data'],
  // source code
  'c h': ['c', 'Code'],
  'cpp cc cxx c++ hpp hh hxx h++ ipp inl': ['cpp', 'Code'],
  cs: ['csharp', 'Code'],
  go: ['go', 'Code'],
  rs: ['rust', 'Code'],
  'py pyi pyw': ['python', 'Code'],
  'rb rake gemspec': ['ruby', 'Code'],
  'js mjs cjs jsx': ['javascript', 'Code'],
  'ts mts cts tsx': ['typescript', 'Code'],
  'java groovy gradle': ['java', 'Code'],
  'kt kts': ['kotlin', 'Code'],
  swift: ['swift', 'Code'],
  'm mm': ['objective-c', 'Code'],
  php: ['php', 'Code'],
  'pl pm t pod': ['perl', 'Code'],
  lua: ['lua', 'Code'],
  r: ['r', 'Code'],
  'scala sc': ['scala', 'Code'],
  sql: ['sql', 'Code'],
  'hs lhs': ['haskell', 'Code'],
  'ml mli': ['ocaml', 'Code'],
  'fs fsi fsx': ['fsharp', 'Code'],
  'ex exs': ['elixir', 'Code'],
  'erl hrl': ['erlang', 'Code'],
  'clj cljs cljc edn': ['clojure', 'Code'],
  'el lisp scm ss rkt': ['lisp', 'Code'],
  dart: ['dart', 'Code'],
  jl: ['julia', 'Code'],
  zig: ['zig', 'Code'],
  nim: ['nim', 'Code'],
  'v sv svh vhd vhdl': ['hdl', 'Code'],
  'asm s': ['assembly', 'Code'],
  'f f90 f95 f03 for': ['fortran', 'Code'],
  'pas pp': ['pascal', 'Code'],
  'vue svelte astro': ['web-component', 'Code'],
  'css scss sass less': ['css', 'Code'],
  'proto thrift graphql gql': ['schema', 'Code'],
  'tf tfvars hcl nix': ['infra', 'Code'],
  vim: ['vimscript', 'Code'],
  // shell
  'sh bash zsh ksh fish': ['shell', 'Shell'],
  'ps1 psm1 psd1': ['powershell', 'Shell'],
  'bat cmd': ['batch', 'Shell'],
  // build files
  'mk mak': ['makefile', 'Build'],
  cmake: ['cmake', 'Build'],
  dockerfile: ['dockerfile', 'Build'],
  // documents extracted by their own parsers
  pdf: ['pdf', 'PDF', 'pdf'],
  docx: ['docx', 'Word', 'docx'],
});

/** Whole file names (lower case) that carry no suffix but are well-known text. */
const BY_NAME = table({
  'dockerfile containerfile': ['dockerfile', 'Build'],
  'makefile gnumakefile makefile.am makefile.in': ['makefile', 'Build'],
  'cmakelists.txt': ['cmake', 'Build'],
  'jenkinsfile vagrantfile gemfile rakefile procfile justfile brewfile podfile': ['build-script', 'Build'],
  'readme license licence copying authors contributors changelog changes news notice todo install': [
    'text',
    'Text',
  ],
});

/** Prefixes like `Dockerfile.dev`, `Jenkinsfile.release`. */
const NAME_PREFIXES: [string, FormatInfo][] = [
  ['dockerfile.', fmt('dockerfile', 'Build')],
  ['containerfile.', fmt('dockerfile', 'Build')],
  ['jenkinsfile.', fmt('build-script', 'Build')],
];

/** Known but not indexed in v1: the explanation names the kind. */
const UNSUPPORTED = new Map<string, string>();
for (const [kind, suffixes] of Object.entries({
  'Office document':
    'doc docm dot dotx xls xlsx xlsm xlsb xlt ppt pptx pptm pps ppsx odt ods odp odg rtf pages numbers key one vsd vsdx pub',
  image: 'png jpg jpeg gif bmp tif tiff webp heic heif ico icns svg svgz psd xcf raw cr2 nef dng avif eps ai',
  archive:
    'zip tar gz tgz bz2 xz zst 7z rar lz lz4 lzma cab iso dmg jar war ear apk deb rpm whl egg gem nupkg',
  database: 'db sqlite sqlite3 mdb accdb dbf sdb parquet avro orc feather arrow h5 hdf5 lmdb realm frm ibd',
  audio: 'mp3 wav flac ogg oga opus m4a aac wma aiff aif mid midi',
  video: 'mp4 m4v mkv mov avi wmv flv webm mpg mpeg 3gp vob',
  'executable or binary': 'exe dll so dylib o a obj lib bin class pyc pyo wasm elf ko sys msi com out',
  font: 'ttf otf woff woff2 eot',
  'e-book': 'epub mobi azw azw3 djvu',
  'model weights': 'gguf ggml safetensors pt pth onnx ckpt pb tflite npy npz pkl pickle',
})) {
  for (const s of suffixes.split(' ')) UNSUPPORTED.set(s, kind);
}

/** Lower-case suffix after the last dot, or '' (a leading dot alone is not a suffix). */
export function suffixOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** The format of a file name, or null when it is not on the allowlist. */
export function detectFormat(name: string): FormatInfo | null {
  const lower = name.toLowerCase();
  const byName = BY_NAME.get(lower);
  if (byName) return byName;
  for (const [prefix, info] of NAME_PREFIXES) if (lower.startsWith(prefix)) return info;
  return BY_SUFFIX.get(suffixOf(name)) ?? null;
}

/** Why a name that `detectFormat` rejects is not indexed, in words. */
export function unsupportedReason(name: string): string {
  const suffix = suffixOf(name);
  if (suffix === 'doc') return 'Office document (.doc) is not indexed in v1; only Word .docx files are';
  const kind = UNSUPPORTED.get(suffix);
  if (kind) return `${kind} (.${suffix}) is not indexed in v1`;
  if (suffix) return `unrecognised file type (.${suffix}) is not on the supported-formats list`;
  return 'file name has no recognised suffix (not on the supported-formats list)';
}

/** The summary group (`Code`, `Markup`…) of a format id; `Other` when unknown. */
export function formatGroup(id: string): string {
  for (const t of [BY_SUFFIX, BY_NAME]) for (const info of t.values()) if (info.id === id) return info.group;
  return 'Other';
}
