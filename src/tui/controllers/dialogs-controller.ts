import type { Binding } from '../bindings.js';
import type {
  ConfirmDialog,
  HelpDialog,
  MessageDialog,
  OptionsDialog,
  RolesDialog,
  SummaryDialog,
} from '../state.js';
import type { Ctx, Scope } from './ctx.js';
import { formScope } from './form-controller.js';
import { listBindings } from './list-bindings.js';
import { saveOptions } from './sources-controller.js';
import { saveRoles } from './stores-controller.js';

// Small dialogs: summary and message (close), confirmation (yes/no), help (scroll), source options
// and roles (forms).

export function closeScope(ctx: Ctx, d: SummaryDialog | MessageDialog): Scope {
  const close = () => ctx.pop(d);
  return {
    chain: 'summary',
    groups: [
      {
        title: d.kind === 'summary' ? 'Summary' : 'Message',
        bindings: [
          { action: 'summary.close', handler: close },
          { action: 'universal.back', handler: close, hint: false },
        ],
      },
    ],
  };
}

export function confirmScope(ctx: Ctx, d: ConfirmDialog): Scope {
  const bindings: Binding[] = [
    {
      action: 'confirm.yes',
      description: `Yes: ${d.yes}`,
      handler: async () => {
        ctx.pop(d);
        await d.onYes();
      },
    },
    { action: 'confirm.no', handler: () => ctx.pop(d) },
    { action: 'universal.back', description: 'No, keep everything', handler: () => ctx.pop(d), hint: false },
  ];
  return { chain: 'confirm', groups: [{ title: d.title, bindings }] };
}

export function helpScope(ctx: Ctx, d: HelpDialog): Scope {
  const bindings: Binding[] = [
    { action: 'universal.back', description: 'Close the help', label: 'close', handler: () => ctx.pop(d) },
    { action: 'universal.help', description: 'Close the help', handler: () => ctx.pop(d) },
    ...listBindings({
      count: () => d.rows.length,
      get: () => d.scroll,
      set: (i) => (d.scroll = i),
      page: () => ctx.state.size.height - 6,
    }),
  ];
  return { chain: 'help', groups: [{ title: 'Help', bindings }] };
}

export function optionsScope(ctx: Ctx, d: OptionsDialog): Scope {
  return formScope(
    ctx,
    {
      get: () => d.form,
      set: (f) => {
        d.form = f;
      },
      press: () => saveOptions(ctx, d),
    },
    'Source options',
  );
}

export function rolesScope(ctx: Ctx, d: RolesDialog): Scope {
  return formScope(
    ctx,
    {
      get: () => d.form,
      set: (f) => {
        d.form = f;
      },
      press: () => saveRoles(ctx, d),
    },
    'Roles',
  );
}
