import type { ActionName } from '../actions.js';
import type { Hint } from '../bindings.js';
import type { AppState } from '../state.js';

/** Everything a view may read: the state, the hints/help computed from bindings, key labels, the clock. */
export interface ViewContext {
  state: AppState;
  hints: Hint[];
  /** First key of an action, as shown to the user. */
  key: (action: ActionName) => string;
  now: number;
}
