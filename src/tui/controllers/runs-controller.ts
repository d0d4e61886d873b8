import type { Binding } from '../bindings.js';
import type { Ctx, Scope } from './ctx.js';
import { listBindings } from './list-bindings.js';

// The runs tab: browse recent AI actions; open the first excerpt of a run in $EDITOR.

export function runsScope(ctx: Ctx): Scope {
  const r = ctx.state.runs;
  const bindings: Binding[] = [
    {
      action: 'runs.openInEditor',
      handler: async () => {
        const e = r.records[r.selected]!.excerpts[0]!;
        await ctx.openEditor(e.path, e.lineStart);
      },
      disabledReason: () =>
        r.records[r.selected]?.excerpts.length ? undefined : 'the selected run has no excerpts',
    },
    ...listBindings({ count: () => r.records.length, get: () => r.selected, set: (i) => (r.selected = i) }),
  ];
  return { chain: 'runs', groups: [{ title: 'Runs', bindings }] };
}
