import type { Tui } from './harness.js';

// Small multi-key steps shared by the pane's tests, all by action name.

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Moves the form focus (form.next) until the field labelled `label` has the focus marker. */
export async function focusField(t: Tui, label: string, max = 30): Promise<string> {
  const re = new RegExp(`›\\s*(?:\\[ |\\[.\\] |[▸▾] )?${esc(label)}`);
  let s = await t.screen();
  for (let i = 0; i < max && !re.test(s); i++) s = await t.press('form.next');
  if (!re.test(s)) throw new Error(`no form field "${label}" on screen:\n${s}`);
  return s;
}

/** Moves a list (list.down) until the highlighted row contains `text`. */
export async function selectRow(t: Tui, text: string, max = 30): Promise<string> {
  const has = (s: string) => s.split('\n').some((l) => l.includes('›') && l.includes(text));
  let s = await t.screen();
  for (let i = 0; i < max && !has(s); i++) s = await t.press('list.down');
  if (!has(s)) throw new Error(`no row "${text}" could be highlighted:\n${s}`);
  return s;
}

/** In the open file browser: go to `path` and choose it (a folder, or the highlighted file). */
export async function choosePath(t: Tui, path: string): Promise<string> {
  await t.press('browser.goto');
  await t.type(path);
  await t.press('browser.open');
  return t.press('browser.choose');
}

/** The highlighted (focus-marked) line of the screen. */
export function highlighted(screen: string): string {
  return screen.split('\n').find((l) => /[│ ]›/.test(l)) ?? '';
}
