import { type Field, type Form, isVisible } from '../forms.js';
import { clampCursor } from '../line-editor.js';
import type { Role } from '../roles.js';
import type { AddSourceDialog, CreateDialog, OptionsDialog, RolesDialog } from '../state.js';
import { type Frame, type Line, type Seg, seg } from '../styled.js';
import { fitText, strWidth, truncate, truncateLeft, wrap } from '../text.js';
import { inputSegs, wrapped } from './common.js';
import { dialogBox, dialogWidth, keyFooter } from './dialog-view.js';
import type { ViewContext } from './view-context.js';

// Forms: one line per visible field, the focused one marked; disabled buttons say why.

const LABEL = 18;

export function formLines(
  form: Form,
  width: number,
  disabled: Record<string, string | undefined> = {},
): Line[] {
  const out: Line[] = [];
  for (const f of form.fields) {
    if (!isVisible(form, f)) continue;
    const isFocus = f.id === form.focus;
    const mark = seg(isFocus ? '›' : ' ', 'focusMarker');
    const indent = f.section ? '  ' : '';
    out.push(...fieldLines(f, isFocus, mark, indent, width, disabled[f.id]));
    if (isFocus && 'hint' in f && f.hint) out.push(...wrapped(f.hint, width, 'dimmed', `  ${indent}`));
  }
  if (form.error) out.push({ segs: [] }, ...wrapped(form.error, width, 'statusError', ' '));
  return out;
}

/** A field's lines: long labels, notes and reasons wrap under their own start, never cut. */
function fieldLines(
  f: Field,
  isFocus: boolean,
  mark: ReturnType<typeof seg>,
  indent: string,
  width: number,
  why?: string,
): Line[] {
  const hang = (first: Seg[], lead: number, text: string, role?: Role): Line[] =>
    wrap(text, Math.max(8, width - lead)).map((l, i) => ({
      segs: [...(i === 0 ? first : [seg(' '.repeat(lead))]), seg(l, role)],
    }));
  switch (f.kind) {
    case 'check': {
      const box = `${indent}[${f.value ? 'x' : ' '}] `;
      return hang([mark, seg(box, isFocus ? 'focusMarker' : undefined)], 1 + strWidth(box), f.label);
    }
    case 'note':
      return hang([seg(` ${indent}`)], 1 + indent.length, f.text, f.tone ?? 'dimmed');
    case 'button': {
      const label = `${indent}[ ${f.label} ]`;
      const head = [mark, seg(label, why ? 'disabled' : isFocus ? 'buttonFocused' : 'button')];
      if (!why) return [{ segs: head }];
      return hang([...head, seg('  ')], 3 + strWidth(label), why, 'disabled');
    }
    default:
      return [fieldLine(f, isFocus, mark, indent, width)];
  }
}

function fieldLine(
  f: Field,
  isFocus: boolean,
  mark: ReturnType<typeof seg>,
  indent: string,
  width: number,
): Line {
  switch (f.kind) {
    case 'text': {
      const label = fitText(`${indent}${f.label}`, LABEL);
      const boxW = Math.max(6, width - LABEL - 4);
      return {
        segs: [
          mark,
          seg(`${label} `),
          ...inputSegs(f.value, isFocus ? clampCursor(f.value, f.cursor) : undefined, boxW, f.placeholder),
        ],
      };
    }
    case 'choice': {
      const opt = f.options.find((o) => o.value === f.value);
      const text = opt?.label ?? (f.options.length === 0 ? 'none available' : f.value);
      return {
        segs: [
          mark,
          seg(`${fitText(`${indent}${f.label}`, LABEL)} `),
          seg(`‹ ${truncate(text, Math.max(4, width - LABEL - 6))} ›`, isFocus ? 'inputField' : undefined),
        ],
      };
    }
    case 'section':
      return {
        segs: [
          mark,
          seg(`${f.open ? '▾' : '▸'} ${f.label}`, 'sectionHeading'),
          seg(f.open ? '' : '  (collapsed)', 'dimmed'),
        ],
      };
    default:
      return { segs: [] };
  }
}

function formDialog(
  v: ViewContext,
  title: string,
  form: Form,
  pre: Line[],
  disabled: Record<string, string | undefined>,
  prefW = 76,
): Frame {
  const w = dialogWidth(v.state.size, prefW) - 2;
  const body = [...pre, ...formLines(form, w, disabled)];
  const footer = keyFooter([
    [`${v.key('form.next')}/${v.key('form.prev')}`, 'move'],
    [v.key('form.toggle'), 'toggle'],
    [v.key('form.activate'), 'press'],
    [v.key('universal.back'), 'close'],
  ]);
  return dialogBox(v.state.size, title, [{ segs: [] }, ...body, { segs: [] }], prefW, footer);
}

export function createView(
  d: CreateDialog,
  v: ViewContext,
  disabled: Record<string, string | undefined>,
): Frame {
  return formDialog(v, 'Create knowledge store', d.form, [], disabled);
}

export function addSourceView(
  d: AddSourceDialog,
  v: ViewContext,
  disabled: Record<string, string | undefined>,
): Frame {
  const w = dialogWidth(v.state.size, 76) - 4;
  const what =
    d.inputs.length === 1
      ? `${d.inputs[0]!.kind === 'folder' ? 'Folder' : 'File'}`
      : `${d.inputs.length} files`;
  const pre: Line[] = d.inputs
    .slice(0, 4)
    .map((i) => ({ segs: [seg('  '), seg(truncateLeft(i.path, w), 'path')] }));
  if (d.inputs.length > 4) pre.push({ segs: [seg(`  … and ${d.inputs.length - 4} more`, 'dimmed')] });
  pre.push({ segs: [] });
  return formDialog(v, `Add ${what.toLowerCase()} to "${d.storeName}"`, d.form, pre, disabled);
}

export function optionsView(
  d: OptionsDialog,
  v: ViewContext,
  disabled: Record<string, string | undefined>,
): Frame {
  const w = dialogWidth(v.state.size, 76) - 4;
  return formDialog(
    v,
    'Source options',
    d.form,
    [{ segs: [seg('  '), seg(truncateLeft(d.path, w), 'path')] }, { segs: [] }],
    disabled,
  );
}

export function rolesView(
  d: RolesDialog,
  v: ViewContext,
  disabled: Record<string, string | undefined>,
): Frame {
  return formDialog(v, `Roles · ${d.storeName}`, d.form, [], disabled, 70);
}
