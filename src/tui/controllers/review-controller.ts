import type { Binding } from '../bindings.js';
import type { ReviewDialog } from '../state.js';
import { reviewRows } from '../views/review-view.js';
import type { Ctx, Scope } from './ctx.js';
import { listBindings } from './list-bindings.js';

// The review step: confirm (index what the preview shows) or cancel (index nothing).

export function reviewScope(ctx: Ctx, d: ReviewDialog): Scope {
  const rowCount = () => {
    const r = d.reviews[d.index]!.review;
    return reviewRows(r, d.skippedOnly).length + (d.skippedOnly ? 0 : r.removed.length);
  };
  const cancel = () => ctx.jobs.confirmReview(false);
  const bindings: Binding[] = [
    { action: 'review.confirm', handler: () => ctx.jobs.confirmReview(true) },
    { action: 'review.cancel', handler: cancel },
    {
      action: 'review.filterSkipped',
      handler: () => {
        d.skippedOnly = !d.skippedOnly;
        d.selected = 0;
      },
    },
    {
      action: 'review.nextSource',
      handler: () => {
        d.index = (d.index + 1) % d.reviews.length;
        d.selected = 0;
      },
      disabledReason: () => (d.reviews.length > 1 ? undefined : 'only one source in this review'),
    },
    { action: 'universal.back', description: 'Cancel: index nothing', handler: cancel, hint: false },
    ...listBindings({
      count: rowCount,
      get: () => d.selected,
      set: (i) => (d.selected = i),
      page: () => ctx.state.size.height - 10,
    }),
  ];
  return { chain: 'review', groups: [{ title: 'Review', bindings }] };
}
