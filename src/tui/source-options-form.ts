import { MiB } from '../scan/rules.js';
import type { SourceOptions, SyncMode } from '../types.js';
import { checked, type Field, type Form, fieldValue, textOf } from './forms.js';

// The per-source fields (synchronization, size limit, globs, .gitignore), shared by the Add source
// dialog and the source Options dialog so their labels, hints and checks cannot drift apart.

export function syncField(value: SyncMode): Field {
  return {
    kind: 'choice',
    id: 'sync',
    label: 'Synchronization',
    value,
    options: [
      { value: 'manual', label: 'manual (Update now)' },
      { value: 'automatic', label: 'automatic (kortty-rag watch)' },
    ],
  };
}

/** The option fields; globs and .gitignore only for folders. `section` hides them under Advanced. */
export function optionFields(o: SourceOptions, folder: boolean, section?: string): Field[] {
  const inSection = section ? { section } : {};
  const fields: Field[] = [
    {
      kind: 'text',
      id: 'maxMiB',
      label: 'Size limit (MiB)',
      value: String(Math.round(o.maxFileBytes / MiB)),
      hint: '1 to 1024 MiB per file',
      ...inSection,
    },
  ];
  if (!folder) return fields;
  fields.push(
    {
      kind: 'text',
      id: 'include',
      label: 'Include globs',
      value: o.include.join(', '),
      placeholder: 'e.g. *.md, docs/**',
      hint: 'comma-separated; narrows the format allowlist, never widens it',
      ...inSection,
    },
    {
      kind: 'text',
      id: 'exclude',
      label: 'Exclude globs',
      value: o.exclude.join(', '),
      placeholder: 'e.g. drafts/**',
      hint: 'comma-separated, relative to the source root',
      ...inSection,
    },
    { kind: 'check', id: 'gitignore', label: 'Honour .gitignore files', value: o.gitignore, ...inSection },
  );
  return fields;
}

export const globs = (s: string): string[] =>
  s
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);

export const readSyncMode = (form: Form): SyncMode =>
  fieldValue(form, 'sync') === 'automatic' ? 'automatic' : 'manual';

/** The options the form holds (globs only when the form has them), or what is wrong. */
export function readOptions(form: Form): { options: Partial<SourceOptions> } | { error: string } {
  const mib = Number(textOf(form, 'maxMiB'));
  if (!Number.isInteger(mib) || mib < 1 || mib > 1024) {
    return { error: 'Size limit: a whole number of MiB from 1 to 1024' };
  }
  const options: Partial<SourceOptions> = { maxFileBytes: mib * MiB };
  if (fieldValue(form, 'include') !== undefined) {
    options.include = globs(textOf(form, 'include'));
    options.exclude = globs(textOf(form, 'exclude'));
    options.gitignore = checked(form, 'gitignore');
  }
  return { options };
}
