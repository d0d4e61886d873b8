import { readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// `--update-doc` of the evaluations: each owns one marked block of docs/EVAL.md and rewrites only it.

export async function updateEvalDoc(report: string, begin: string, end: string): Promise<void> {
  const path = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'EVAL.md');
  const doc = await readFile(path, 'utf8');
  const i = doc.indexOf(begin);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${path}: markers ${begin} … ${end} not found`);
  await writeFile(path, `${doc.slice(0, i + begin.length)}\n\n${report}\n\n${doc.slice(j)}`);
  console.log(`updated ${path}`);
}
