import { isProblem } from '../scan/skip-kinds.js';
import type { SourceRecord } from './store-types.js';

// store.json written before skipped files were told apart from problems has only `problems` and
// `problemList`, both holding every skipped entry. Loading such a record splits the list by reason
// (scan/skip-kinds.ts). The list was bounded, so when it is shorter than the count the rest is
// unknown: it is counted as skipped when every listed entry was a skip by design, else as
// problems (the safe side). The next Update now writes exact counts. Pure.

type OldSource = Omit<SourceRecord, 'skipped' | 'skippedList'> &
  Partial<Pick<SourceRecord, 'skipped' | 'skippedList'>>;

export function migrateSourceCounts(src: OldSource): SourceRecord {
  if (typeof src.skipped === 'number' && Array.isArray(src.skippedList)) return src as SourceRecord;
  const list = Array.isArray(src.problemList) ? src.problemList : [];
  const problemList = list.filter((p) => isProblem(p.reason));
  const skippedList = list.filter((p) => !isProblem(p.reason));
  const rest = Math.max(0, (src.problems ?? 0) - list.length);
  const restAreProblems = problemList.length > 0 || list.length === 0;
  return {
    ...src,
    problems: problemList.length + (restAreProblems ? rest : 0),
    problemList,
    skipped: skippedList.length + (restAreProblems ? 0 : rest),
    skippedList,
  };
}
