import { basename } from 'node:path';
import { chunkDocument } from '../chunk/chunk-document.js';
import { getTokenizer } from '../chunk/tokenizer.js';
import { detectFormat } from '../scan/formats.js';
import { scanSource } from '../scan/scan-source.js';
import { korttyHome } from '../storage/paths.js';
import { resolveModel } from './model-resolve.js';
import type { PipelinePorts } from './ports.js';

// The real adapters behind the index job's ports.
export function createDefaultPorts(home = korttyHome()): PipelinePorts {
  return {
    scan: (source, previous, signal) =>
      scanSource({ root: source.path, kind: source.kind, options: source.options, previous, signal }),
    // The extractor follows the allowlist's own mapping, so scan and extraction never disagree.
    async extract(path, _format, signal, expectSha256, scanned) {
      const { extractDocument } = await import('../extract/extract.js');
      const kind = detectFormat(basename(path))?.extract ?? 'text';
      return extractDocument(path, kind, { signal, expectSha256, scanned });
    },
    chunk: (doc, params) => chunkDocument(doc, params, getTokenizer()),
    async openEmbedder(fingerprint, modelId) {
      // node-llama-cpp costs ~0.9 s to import: load it only when something needs embedding.
      const { createEmbedder } = await import('../embed/provider.js');
      const model = await resolveModel(modelId, home);
      return createEmbedder({ modelPath: model.path, modelId, sha256: model.sha256, fingerprint });
    },
  };
}
