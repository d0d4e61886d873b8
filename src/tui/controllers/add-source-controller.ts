import { MiB } from '../../app/limits.js';
import type { StoreConfig } from '../../store/store-types.js';
import type { SyncMode } from '../../types.js';
import { checked, fieldValue, globs, textOf } from '../forms.js';
import { type AddSourceDialog, jobBlocked } from '../state.js';
import type { Ctx, Scope } from './ctx.js';
import { formScope } from './form-controller.js';

// After choosing paths: sync mode and the collapsed Advanced options, then the background check.

export function openAddSource(ctx: Ctx, store: StoreConfig, inputs: AddSourceDialog['inputs']) {
  const folder = inputs.some((i) => i.kind === 'folder');
  ctx.push({
    kind: 'addSource',
    storeId: store.id,
    storeName: store.name,
    inputs,
    form: {
      focus: 'scan',
      fields: [
        {
          kind: 'choice',
          id: 'sync',
          label: 'Synchronization',
          value: 'manual',
          options: [
            { value: 'manual', label: 'manual (Update now)' },
            { value: 'automatic', label: 'automatic (kortty-rag watch)' },
          ],
        },
        { kind: 'section', id: 'advanced', label: 'Advanced', open: false },
        {
          kind: 'text',
          id: 'maxMiB',
          label: 'Size limit (MiB)',
          value: '50',
          section: 'advanced',
          hint: '1 to 1024 MiB per file',
        },
        ...(folder
          ? ([
              {
                kind: 'text',
                id: 'include',
                label: 'Include globs',
                value: '',
                section: 'advanced',
                placeholder: 'e.g. *.md, docs/**',
                hint: 'comma-separated; narrows the format allowlist, never widens it',
              },
              {
                kind: 'text',
                id: 'exclude',
                label: 'Exclude globs',
                value: '',
                section: 'advanced',
                placeholder: 'e.g. drafts/**',
              },
              {
                kind: 'check',
                id: 'gitignore',
                label: 'Honour .gitignore files',
                value: true,
                section: 'advanced',
              },
            ] as const)
          : []),
        { kind: 'button', id: 'scan', label: 'Check and review' },
      ],
    },
  });
}

export function addSourceScope(ctx: Ctx, d: AddSourceDialog): Scope {
  const store = () => ctx.state.stores.find((s) => s.id === d.storeId);
  return formScope(
    ctx,
    {
      get: () => d.form,
      set: (f) => {
        d.form = f;
      },
      disabled: () => ({ scan: jobBlocked(ctx.state, store()) }),
      press: async () => {
        const mib = Number(textOf(d.form, 'maxMiB'));
        if (!Number.isInteger(mib) || mib < 1 || mib > 1024) {
          d.form = { ...d.form, error: 'Size limit: a whole number of MiB from 1 to 1024' };
          return;
        }
        const options = {
          maxFileBytes: mib * MiB,
          ...(fieldValue(d.form, 'include') !== undefined
            ? {
                include: globs(textOf(d.form, 'include')),
                exclude: globs(textOf(d.form, 'exclude')),
                gitignore: checked(d.form, 'gitignore'),
              }
            : {}),
        };
        const sync: SyncMode = fieldValue(d.form, 'sync') === 'automatic' ? 'automatic' : 'manual';
        const inputs = d.inputs.map((i) => ({ ...i, sync, options }));
        const st = store();
        // Already covered or overlapping sources are refused here, with the existing source's path.
        const refused = st
          ? ctx.services.checkNewSources(st, inputs)
          : `store "${d.storeName}" no longer exists`;
        if (refused) {
          d.form = { ...d.form, error: refused };
          return;
        }
        ctx.pop(d);
        await ctx.jobs.start(
          { op: 'add', store: d.storeId, inputs },
          { op: 'add', storeId: d.storeId, storeName: d.storeName, adding: d.inputs, sourceIds: [] },
        );
      },
    },
    'Add source',
  );
}
