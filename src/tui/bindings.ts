import { ACTIONS, type ActionName } from './actions.js';
import { type Keymap, keyLabel } from './keymap.js';

// A controller is mostly a list of these records (lazygit's pattern): the named action, what it
// does, and when it cannot run, why. Dispatch, the hint bar and the help overlay all read them.

export interface Binding {
  action: ActionName;
  handler: () => void | Promise<void>;
  /** Shown instead of running the handler when the action cannot run now. */
  disabledReason?: () => string | undefined;
  /** Overrides the catalogue's description (e.g. universal.back in a dialog: "Cancel the review"). */
  description?: string;
  /** Left out of the one-line hint bar (still in the help overlay). */
  hint?: boolean;
  /** The hint bar's word for it here, when the catalogue's does not fit (e.g. "cancel" for back). */
  label?: string;
}

export interface BindingGroup {
  title: string;
  bindings: Binding[];
}

export const describe = (b: Binding): string => b.description ?? ACTIONS[b.action].description;

/** First binding for the action, most specific group first. */
export function findBinding(groups: readonly BindingGroup[], action: ActionName): Binding | undefined {
  for (const g of groups) {
    const b = g.bindings.find((x) => x.action === action);
    if (b) return b;
  }
  return undefined;
}

export interface HelpRow {
  keys: string;
  description: string;
  disabled?: string;
  heading?: boolean;
}

/** The help overlay's rows: every binding in scope, its keys, and why it is disabled. */
export function helpRows(groups: readonly BindingGroup[], km: Keymap): HelpRow[] {
  const rows: HelpRow[] = [];
  const seen = new Set<ActionName>();
  for (const g of groups) {
    const list = g.bindings.filter((b) => !seen.has(b.action));
    if (list.length === 0) continue;
    rows.push({ keys: '', description: g.title, heading: true });
    for (const b of list) {
      seen.add(b.action);
      rows.push({
        keys: km.keys[b.action].map(keyLabel).join(', '),
        description: describe(b),
        ...(b.disabledReason?.() ? { disabled: b.disabledReason() } : {}),
      });
    }
  }
  return rows;
}

export interface Hint {
  key: string;
  label: string;
}

/**
 * The hint bar: only keys that work now (a disabled action is left out; the help overlay says
 * why it cannot run), each with a short label.
 */
export function hints(groups: readonly BindingGroup[], km: Keymap): Hint[] {
  const out: Hint[] = [];
  const seen = new Set<ActionName>();
  for (const g of groups) {
    for (const b of g.bindings) {
      if (seen.has(b.action)) continue;
      seen.add(b.action);
      if (b.hint === false || b.disabledReason?.()) continue;
      out.push({
        key: keyLabel(km.keys[b.action][0]!),
        label: b.label ?? ACTIONS[b.action].hint,
      });
    }
  }
  return out;
}
