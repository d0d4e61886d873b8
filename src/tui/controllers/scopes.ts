import { helpRows } from '../bindings.js';
import { EDIT_KEYS } from '../line-editor.js';
import { topDialog } from '../state.js';
import { addSourceScope } from './add-source-controller.js';
import { assistantScope } from './assistant-controller.js';
import { browserScope } from './browser-controller.js';
import { createScope, openCreate } from './create-controller.js';
import type { Ctx, Scope } from './ctx.js';
import { closeScope, confirmScope, helpScope, optionsScope, rolesScope } from './dialogs-controller.js';
import { globalBindings, paneBindings } from './global-controller.js';
import { reviewScope } from './review-controller.js';
import { runsScope } from './runs-controller.js';
import { searchScope } from './search-controller.js';
import { sourcesScope } from './sources-controller.js';
import { storesScope } from './stores-controller.js';

// Which bindings are in force: the top dialog's, else the focused pane's; then the global ones.

function ownScope(ctx: Ctx, skipHelp = false): Scope {
  const s = ctx.state;
  const dialogs = skipHelp ? s.dialogs.filter((d) => d.kind !== 'help') : s.dialogs;
  const d = dialogs.at(-1);
  if (!d) {
    if (s.tab === 'runs') return runsScope(ctx);
    return s.focus === 'sources' ? sourcesScope(ctx) : storesScope(ctx, () => openCreate(ctx));
  }
  switch (d.kind) {
    case 'create':
      return createScope(ctx, d);
    case 'addSource':
      return addSourceScope(ctx, d);
    case 'options':
      return optionsScope(ctx, d);
    case 'roles':
      return rolesScope(ctx, d);
    case 'assistant':
      return assistantScope(ctx, d);
    case 'browser':
      return browserScope(ctx, d);
    case 'scan':
      return {
        chain: 'scan',
        groups: [
          {
            title: 'Checking files',
            bindings: [
              {
                action: 'universal.back',
                description: 'Cancel the check',
                label: 'cancel check',
                handler: () => ctx.jobs.cancel(),
                disabledReason: () => ctx.jobs.cancelBlocked(),
              },
            ],
          },
        ],
      };
    case 'review':
      return reviewScope(ctx, d);
    case 'summary':
    case 'message':
      return closeScope(ctx, d);
    case 'confirm':
      return confirmScope(ctx, d);
    case 'search':
      return searchScope(ctx, d);
    case 'help':
      return helpScope(ctx, d);
  }
}

export function currentScope(ctx: Ctx): Scope {
  const own = ownScope(ctx);
  const openHelp = () => {
    ctx.push({ kind: 'help', rows: [], scroll: 0 });
  };
  const panes =
    ctx.state.dialogs.length === 0 ? [{ title: 'Panes and tabs', bindings: paneBindings(ctx) }] : [];
  return {
    ...own,
    groups: [...own.groups, ...panes, { title: 'Everywhere', bindings: globalBindings(ctx, openHelp) }],
  };
}

/** Help for what is under the help overlay. */
export function helpFor(ctx: Ctx) {
  const under = ownScope(ctx, true);
  const panes = ctx.state.dialogs.some((d) => d.kind !== 'help')
    ? []
    : [{ title: 'Panes and tabs', bindings: paneBindings(ctx) }];
  const groups = [
    ...under.groups,
    ...panes,
    { title: 'Everywhere', bindings: globalBindings(ctx, () => {}) },
  ];
  const editing = under.text
    ? [{ keys: '', description: 'Editing the text (as in readline)', heading: true }, ...EDIT_KEYS]
    : [];
  return [...editing, ...helpRows(groups, ctx.keymap)];
}

export { topDialog };
