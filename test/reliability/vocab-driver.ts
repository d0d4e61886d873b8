// Child process of the vocabulary suite: extracts the vocabularies named in REL_VOCABS into
// REL_CACHE (a first run's extraction), to be SIGKILLed by the parent part-way through.
import { extractVocabs, type VocabName } from '../../src/embed/vocab-bundle.js';

extractVocabs(process.env.REL_VOCABS!.split(',') as VocabName[], process.env.REL_CACHE!).then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error)?.stack ?? err}\n`);
    process.exit(1);
  },
);
