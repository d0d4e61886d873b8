import type { BindingGroup } from '../bindings.js';
import type { Keymap } from '../keymap.js';
import type { LineState } from '../line-editor.js';
import type { Services } from '../services.js';
import type { AppState, Dialog, Level } from '../state.js';
import type { JobController } from './job-controller.js';

// What a controller may use. Controllers change `state` and call services; the app renders after
// every handler and tracks in-flight operations for the busy/idle signal.

export interface Ctx {
  state: AppState;
  services: Services;
  keymap: Keymap;
  jobs: JobController;
  render(): void;
  /** Runs an async operation: shows `label` while it runs, reports a failure in a dialog. */
  op<T>(label: string | undefined, fn: () => Promise<T>): Promise<T | undefined>;
  /** Runs an async operation counted as in flight (no idle signal until it ends); errors propagate. */
  track<T>(fn: () => Promise<T>): Promise<T>;
  push(d: Dialog): void;
  /** Removes this dialog (default: the top one). */
  pop(d?: Dialog): void;
  notify(text: string, level?: Level): void;
  fail(title: string, err: unknown): void;
  refresh(): Promise<void>;
  openEditor(path: string, line?: number): Promise<void>;
  quit(): void;
}

/** A focused text input: the line editor (line-editor.ts) reads and replaces its text and cursor. */
export interface TextTarget {
  get(): LineState;
  set(s: LineState): void;
}

/** The bindings in force for what has focus, most specific group first. */
export interface Scope {
  chain: string;
  groups: BindingGroup[];
  text?: TextTarget;
  /** Form buttons that cannot be pressed now, and why. */
  disabledFields?: Record<string, string | undefined>;
}
