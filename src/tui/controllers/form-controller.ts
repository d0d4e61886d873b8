import type { Binding } from '../bindings.js';
import { type Form, focused, isTextFocused, moveFocus, setTextState, textState, toggle } from '../forms.js';
import type { Ctx, Scope } from './ctx.js';

// The bindings every form dialog shares: move between fields, toggle, press buttons, type text.

export interface FormHost {
  get(): Form;
  set(f: Form): void;
  /** A button was pressed (or enter on the last field). */
  press(buttonId: string): void | Promise<void>;
  disabled?: () => Record<string, string | undefined>;
  close?: () => void;
}

export function formScope(ctx: Ctx, host: FormHost, title: string, extra: Binding[] = []): Scope {
  const disabled = host.disabled?.() ?? {};
  const activate = async () => {
    const f = focused(host.get());
    if (!f) return;
    if (f.kind === 'button') {
      const why = disabled[f.id];
      if (why) {
        host.set({ ...host.get(), error: `${f.label}: ${why}` });
        return;
      }
      host.set({ ...host.get(), error: undefined });
      await host.press(f.id);
    } else if (f.kind === 'check' || f.kind === 'section' || f.kind === 'choice')
      host.set(toggle(host.get()));
    else host.set(moveFocus(host.get(), 1));
  };
  const bindings: Binding[] = [
    ...extra,
    { action: 'form.next', handler: () => host.set(moveFocus(host.get(), 1)) },
    { action: 'form.prev', handler: () => host.set(moveFocus(host.get(), -1)) },
    { action: 'form.activate', handler: activate },
    { action: 'form.toggle', handler: () => host.set(toggle(host.get())) },
    {
      action: 'universal.back',
      description: 'Close without saving',
      label: 'close',
      handler: () => (host.close ? host.close() : ctx.pop()),
    },
  ];
  return {
    chain: 'form',
    groups: [{ title, bindings }],
    disabledFields: disabled,
    ...(isTextFocused(host.get())
      ? {
          text: {
            get: () => textState(host.get()),
            set: (s) => host.set(setTextState(host.get(), s)),
          },
        }
      : {}),
  };
}
