import { clampCursor, type LineState } from './line-editor.js';

// Pure form model for the pane's dialogs (create store, add source, source options, roles): fields,
// focus, editing. Views render it; controllers call these verbs.

interface Base {
  id: string;
  /** Shown only while this section field is open. */
  section?: string;
  /** Shown only while another field has this value. */
  when?: { field: string; equals: string | boolean };
}

export type Field =
  | (Base & {
      kind: 'text';
      label: string;
      value: string;
      /** Where the line editor's cursor is (undefined: at the end). */
      cursor?: number;
      placeholder?: string;
      hint?: string;
    })
  | (Base & { kind: 'check'; label: string; value: boolean; hint?: string })
  | (Base & {
      kind: 'choice';
      label: string;
      value: string;
      options: { value: string; label: string }[];
      hint?: string;
    })
  | (Base & { kind: 'section'; label: string; open: boolean })
  | (Base & { kind: 'button'; label: string })
  | (Base & { kind: 'note'; text: string; tone?: 'dimmed' | 'statusWarning' | 'statusError' | 'path' });

export interface Form {
  fields: Field[];
  focus: string;
  error?: string;
}

const focusable = (f: Field) => f.kind !== 'note';

export function isVisible(form: Form, f: Field): boolean {
  if (f.section) {
    const s = form.fields.find((x) => x.id === f.section);
    if (s?.kind !== 'section' || !s.open) return false;
  }
  if (f.when) {
    const other = form.fields.find((x) => x.id === f.when!.field);
    if (!other || !('value' in other) || other.value !== f.when.equals) return false;
  }
  return true;
}

export const visibleFields = (form: Form): Field[] => form.fields.filter((f) => isVisible(form, f));

export function focused(form: Form): Field | undefined {
  return form.fields.find((f) => f.id === form.focus);
}

export function moveFocus(form: Form, delta: 1 | -1): Form {
  const list = visibleFields(form).filter(focusable);
  if (list.length === 0) return form;
  const i = list.findIndex((f) => f.id === form.focus);
  const next = list[(i + delta + list.length) % list.length]!;
  return { ...form, focus: next.id };
}

function update(form: Form, id: string, fn: (f: Field) => Field): Form {
  return { ...form, fields: form.fields.map((f) => (f.id === id ? fn(f) : f)) };
}

/** Checkbox: flip; choice: next (or previous) option; section: open/close. */
export function toggle(form: Form, delta: 1 | -1 = 1): Form {
  return update(form, form.focus, (f) => {
    if (f.kind === 'check') return { ...f, value: !f.value };
    if (f.kind === 'section') return { ...f, open: !f.open };
    if (f.kind === 'choice' && f.options.length > 0) {
      const i = f.options.findIndex((o) => o.value === f.value);
      return { ...f, value: f.options[(i + delta + f.options.length) % f.options.length]!.value };
    }
    return f;
  });
}

export function setValue(form: Form, id: string, value: string | boolean): Form {
  return update(form, id, (f) => ('value' in f ? ({ ...f, value } as Field) : f));
}

export function setOptions(
  form: Form,
  id: string,
  options: { value: string; label: string }[],
  value?: string,
): Form {
  return update(form, id, (f) =>
    f.kind === 'choice'
      ? {
          ...f,
          options,
          value: value ?? (options.some((o) => o.value === f.value) ? f.value : (options[0]?.value ?? '')),
        }
      : f,
  );
}

export function setNote(form: Form, id: string, text: string): Form {
  return update(form, id, (f) => (f.kind === 'note' ? { ...f, text } : f));
}

export function isTextFocused(form: Form): boolean {
  return focused(form)?.kind === 'text';
}

/** The focused text field's text and cursor (for the line editor). */
export function textState(form: Form): LineState {
  const f = focused(form);
  return f?.kind === 'text'
    ? { text: f.value, cursor: clampCursor(f.value, f.cursor) }
    : { text: '', cursor: 0 };
}

export function setTextState(form: Form, s: LineState): Form {
  return update(form, form.focus, (f) => (f.kind === 'text' ? { ...f, value: s.text, cursor: s.cursor } : f));
}

/** Types at the end of the focused text field. */
export function typeText(form: Form, text: string): Form {
  return update(form, form.focus, (f) =>
    f.kind === 'text' ? { ...f, value: f.value + text, cursor: undefined } : f,
  );
}

export function fieldValue(form: Form, id: string): string | boolean | undefined {
  const f = form.fields.find((x) => x.id === id);
  return f && 'value' in f ? f.value : undefined;
}

export const textOf = (form: Form, id: string): string => String(fieldValue(form, id) ?? '').trim();
export const checked = (form: Form, id: string): boolean => fieldValue(form, id) === true;
