import type { Binding } from '../bindings.js';

// list.* bindings over any list: the caller says how long it is and where the cursor is.

export interface ListAccess {
  count(): number;
  get(): number;
  set(i: number): void;
  /** Rows per page (default 10). */
  page?: () => number;
}

export function listBindings(l: ListAccess): Binding[] {
  const move = (to: number) => {
    const n = l.count();
    l.set(n === 0 ? 0 : Math.max(0, Math.min(n - 1, to)));
  };
  const page = () => Math.max(1, l.page?.() ?? 10);
  return [
    { action: 'list.up', handler: () => move(l.get() - 1), hint: false },
    { action: 'list.down', handler: () => move(l.get() + 1), hint: false },
    { action: 'list.pageUp', handler: () => move(l.get() - page()), hint: false },
    { action: 'list.pageDown', handler: () => move(l.get() + page()), hint: false },
    { action: 'list.top', handler: () => move(0), hint: false },
    { action: 'list.bottom', handler: () => move(l.count() - 1), hint: false },
  ];
}
