import { DEFAULT_SOURCE_OPTIONS } from '../../scan/rules.js';
import type { StoreConfig } from '../../store/store-types.js';
import { optionFields, readOptions, readSyncMode, syncField } from '../source-options-form.js';
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
        syncField('manual'),
        { kind: 'section', id: 'advanced', label: 'Advanced', open: false },
        ...optionFields(DEFAULT_SOURCE_OPTIONS, folder, 'advanced'),
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
        const read = readOptions(d.form);
        if ('error' in read) {
          d.form = { ...d.form, error: read.error };
          return;
        }
        const { options } = read;
        const sync = readSyncMode(d.form);
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
