import type { Binding } from '../bindings.js';
import { keyLabel } from '../keymap.js';
import { topDialog } from '../state.js';
import type { Ctx } from './ctx.js';

// Bindings that work everywhere (dialogs may override universal.back).

export function globalBindings(ctx: Ctx, openHelp: () => void): Binding[] {
  const s = ctx.state;
  return [
    { action: 'universal.help', handler: openHelp },
    {
      action: 'universal.quit',
      handler: () => ctx.quit(),
      // Leaving mid-job would orphan it (and, in Create, a half-made store): cancel first, it is quick.
      disabledReason: () =>
        s.job && !s.job.cancelling
          ? `a job is running for "${s.job.storeName}"; cancel it first (${keyLabel(ctx.keymap.keys['job.cancel'][0]!)})`
          : undefined,
    },
    {
      action: 'universal.back',
      handler: () => {
        if (topDialog(s)) ctx.pop();
        else if (s.tab === 'runs') s.tab = 'stores';
        else s.focus = 'stores';
      },
      hint: false,
    },
    {
      action: 'universal.refresh',
      handler: () => ctx.op('Reloading…', () => ctx.refresh()).then(() => undefined),
      hint: false,
    },
    {
      action: 'job.cancel',
      handler: () => ctx.jobs.cancel(),
      disabledReason: () => ctx.jobs.cancelBlocked(),
      hint: false,
    },
  ];
}

/** Tab and pane switching: only on the main screen (no dialog open). */
export function paneBindings(ctx: Ctx): Binding[] {
  const s = ctx.state;
  return [
    // The runs tab has one pane: tab / 1 go back to the stores tab from there.
    ...(s.tab === 'stores'
      ? [
          {
            action: 'universal.nextPane' as const,
            handler: () => {
              s.focus = s.focus === 'stores' ? 'sources' : 'stores';
            },
            hint: false,
          },
        ]
      : []),
    {
      action: 'universal.tabStores',
      handler: () => {
        s.tab = 'stores';
      },
      hint: false,
    },
    {
      action: 'universal.tabRuns',
      handler: async () => {
        s.tab = 'runs';
        await ctx.op('Loading runs…', async () => {
          const runs = await ctx.services.loadRuns(s.stores);
          s.runs = { ...runs, selected: Math.min(s.runs.selected, Math.max(0, runs.records.length - 1)) };
        });
      },
      hint: false,
    },
  ];
}
