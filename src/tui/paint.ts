import type { Role } from './roles.js';
import type { Frame, Line, Seg } from './styled.js';
import type { Style, Theme } from './theme.js';

// The one place colours are applied: styled lines + theme → blessed tagged text. Widgets never
// name a colour; they name a role.

const escapeTags = (s: string) => s.replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'));

export function styleOf(theme: Theme, role: Role | undefined, over: Role | undefined): Style {
  const base = theme.roles.default;
  const own = role ? theme.roles[role] : {};
  const top = over ? theme.roles[over] : {};
  return { ...base, ...own, ...top };
}

function openTags(s: Style): string {
  let t = '';
  if (s.fg && s.fg !== 'default') t += `{${s.fg}-fg}`;
  if (s.bg && s.bg !== 'default') t += `{${s.bg}-bg}`;
  if (s.bold) t += '{bold}';
  if (s.underline) t += '{underline}';
  if (s.inverse) t += '{inverse}';
  return t;
}

export function paintLine(l: Line, theme: Theme): string {
  let out = '';
  let prevTags: string | undefined;
  let run = '';
  const flush = () => {
    if (run === '') return;
    out += prevTags ? `${prevTags}${escapeTags(run)}{/}` : escapeTags(run);
    run = '';
  };
  for (const s of l.segs as Seg[]) {
    const tags = openTags(styleOf(theme, s.role, s.over ?? l.over));
    if (tags !== prevTags) {
      flush();
      prevTags = tags;
    }
    run += s.text;
  }
  flush();
  return out;
}

export function paintFrame(frame: Frame, theme: Theme): string {
  return frame.map((l) => paintLine(l, theme)).join('\n');
}
