// The dependency rules of src/ (docs/CODEBASE.md, "Layering"), checked by `npm run lint`.
//
//   faces        cli/ tui/                      → app/, store/, status/, base (cli/ also → tui/)
//   app/         the composition root           → everything below
//   processes    watch/ service/ mcp/           → services, stages, base (not each other)
//   services     store/ ai/                     → stages, base (ai/ → store/, never back)
//   stages       scan/ extract/ chunk/ embed/ index/ qdrant/ vault/   → base only (extract/ also → scan/)
//                retrieve/ → chunk/, index/, base;  status/ → base
//   base         errors.ts types.ts util/ storage/   → base only
//
// Every edge between folders points down this list, so no cycle between folders can form.

const BASE = '^src/(errors\\.ts|types\\.ts|util/|storage/)';
const LEAF_STAGES = '^src/(scan|extract|chunk|embed|index|qdrant|vault)/';
const UPPER = '^src/(store|ai|watch|service|mcp|app|cli|tui)/';
const PROCESSES = '^src/(watch|service|mcp)/';
const FACES = '^src/(cli|tui)/';

// The I/O shells allowed to import node:fs: storage/, files named *-file.ts / *-files.ts, and these.
const FS_ADAPTERS = [
  '^src/storage/',
  '-files?\\.ts$',
  '^src/app/(files|search-deps)\\.ts$',
  '^src/embed/(fingerprint|generate-model|installer|model-info|model-registry|starter-model|vocab-bundle)\\.ts$',
  '^src/extract/(read-scanned|worker-pool)\\.ts$',
  '^src/index/hnsw\\.ts$',
  '^src/mcp/server\\.ts$',
  '^src/scan/(dir-handle|read-candidate|root-stat|walk)\\.ts$',
  '^src/service/(build-stamp|host|launch|service-config|socket-guard|store-catalog)\\.ts$',
  '^src/status/status-lines\\.ts$',
  '^src/store/(data-dir|store-config)\\.ts$',
  '^src/tui/(fs-list|signal)\\.ts$',
  '^src/util/(cores|peak-rss|pid-alive)\\.ts$',
  '^src/watch/(fs-probe|roots|source-filter|source-watcher|store-stamps)\\.ts$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules of src/ import each other in a cycle: split out what both need.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'base-is-base',
      severity: 'error',
      comment: 'errors.ts, types.ts, util/ and storage/ are the base every layer uses: they import no layer.',
      from: { path: BASE },
      to: { path: '^src/', pathNot: BASE },
    },
    {
      name: 'leaf-stages-know-only-base',
      severity: 'error',
      comment:
        'scan/, extract/, chunk/, embed/, index/, qdrant/ and vault/ are pipeline stages: they know no store, no other stage and nothing above them.',
      from: { path: LEAF_STAGES, pathNot: '^src/extract/' },
      to: { path: '^src/', pathNot: [BASE, '^src/$1/'] },
    },
    {
      name: 'extract-knows-only-scan',
      severity: 'error',
      comment: 'extract/ imports only the base and scan/ (see extract-reads-what-scan-verified).',
      from: { path: '^src/extract/' },
      to: { path: '^src/', pathNot: [BASE, '^src/(extract|scan)/'] },
    },
    {
      name: 'extract-reads-what-scan-verified',
      severity: 'error',
      comment:
        'The one edge between leaf stages: extract/ reopens exactly the file the scanner verified (scan/dir-handle.ts) and shares its units; scan/ never imports extract/.',
      from: { path: '^src/scan/' },
      to: { path: '^src/extract/' },
    },
    {
      name: 'retrieve-knows-no-store',
      severity: 'error',
      comment: 'retrieve/ ranks and bounds excerpts over chunk/ and index/; the app layer wires it to stores.',
      from: { path: '^src/retrieve/' },
      to: { path: '^src/', pathNot: [BASE, '^src/(retrieve|chunk|index)/'] },
    },
    {
      name: 'status-knows-no-store',
      severity: 'error',
      comment: 'status/ renders status files; store/ writes them and passes its store list in.',
      from: { path: '^src/status/' },
      to: { path: '^src/', pathNot: [BASE, '^src/status/'] },
    },
    {
      name: 'store-never-imports-upward',
      severity: 'error',
      comment: 'store/ (the engine) serves ai/, the processes, the app and the faces; it imports none of them.',
      from: { path: '^src/store/' },
      to: { path: '^src/(ai|watch|service|mcp|app|cli|tui)/' },
    },
    {
      name: 'ai-never-imports-upward',
      severity: 'error',
      comment: 'ai/ (profiles, policy, prompts, runs, actions) imports stages and store/, nothing above.',
      from: { path: '^src/ai/' },
      to: { path: '^src/(watch|service|mcp|app|cli|tui)/' },
    },
    {
      name: 'processes-get-wiring-injected',
      severity: 'error',
      comment:
        'The watcher, the query service and the MCP server are started by the app layer with their dependencies; they import neither it, the faces, nor each other.',
      from: { path: PROCESSES },
      to: { path: '^src/(app|cli|tui)/|^src/(watch|service|mcp)/', pathNot: '^src/$1/' },
    },
    {
      name: 'app-below-faces',
      severity: 'error',
      comment: 'The composition root is called by the faces, never the other way.',
      from: { path: '^src/app/' },
      to: { path: FACES },
    },
    {
      name: 'faces-go-through-app',
      severity: 'error',
      comment:
        'cli/ and tui/ call the app layer (and the store engine and status views); they never reach into the stages, ai/ or the processes.',
      from: { path: FACES },
      to: { path: '^src/(scan|extract|chunk|embed|index|qdrant|vault|retrieve|ai|watch|service|mcp)/' },
    },
    {
      name: 'tui-is-not-cli',
      severity: 'error',
      comment: 'The CLI starts the TUI; the TUI does not use the CLI.',
      from: { path: '^src/tui/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'fs-only-in-adapters',
      severity: 'error',
      comment:
        'node:fs belongs to the I/O shells (storage/, *-file.ts and the listed adapters); pure cores, views and commands get data, not files.',
      from: { path: '^src/', pathNot: FS_ADAPTERS },
      to: { dependencyTypes: ['core'], path: '^(node:)?fs(/promises)?$' },
    },
    {
      name: 'native-and-network-libraries-in-adapters',
      severity: 'error',
      comment:
        'node-llama-cpp, hnswlib-node, pdf2json, the Qdrant client, chokidar and neo-blessed each sit behind their adapter modules.',
      from: {
        path: '^src/',
        pathNot: [
          '^src/(embed|ai/backends)/',
          '^src/index/hnsw\\.ts$',
          '^src/extract/extract-child\\.ts$',
          '^src/qdrant/',
          '^src/watch/source-watcher\\.ts$',
          '^src/tui/screen\\.ts$',
        ],
      },
      to: {
        path: 'node_modules/(node-llama-cpp|hnswlib-node|pdf2json|@qdrant/js-client-rest|chokidar|neo-blessed)/',
      },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import (in src, tests or benches) of a module that does not exist.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'src-not-to-dev-dependencies',
      severity: 'error',
      comment: 'Shipped code may not import a devDependency: it is not installed for users.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-undeclared-packages',
      severity: 'error',
      comment: 'Every package imported is declared in package.json.',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'src-not-to-tests',
      severity: 'error',
      comment: 'Shipped code never imports tests or benches.',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
