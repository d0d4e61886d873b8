import type { Role } from '../roles.js';
import type { Level } from '../state.js';
import { type Line, type Seg, seg } from '../styled.js';
import { wrap } from '../text.js';

// Small pure pieces shared by the views.

export function statusRole(status: string): Role {
  switch (status) {
    case 'READY':
      return 'statusOk';
    case 'ERROR':
    case 'MISSING':
      return 'statusError';
    case 'SCANNING':
    case 'INDEXING':
    case 'SYNCING':
      return 'statusBusy';
    case 'DISABLED':
    case 'EMPTY':
      return 'dimmed';
    case 'LIMITED':
    case 'NEW':
      return 'statusWarning';
    default:
      return 'statusInfo';
  }
}

export function levelRole(level: Level): Role {
  return {
    info: 'statusInfo',
    ok: 'statusOk',
    warning: 'statusWarning',
    error: 'statusError',
    busy: 'statusBusy',
  }[level] as Role;
}

export function progressBar(percent: number, width: number): Seg[] {
  const w = Math.max(0, width);
  const done = Math.max(0, Math.min(w, Math.round((w * percent) / 100)));
  return [seg('█'.repeat(done), 'progressBar'), seg('░'.repeat(w - done), 'progressTrack')];
}

export function wrapped(text: string, width: number, role?: Role, indent = ''): Line[] {
  return wrap(text, Math.max(1, width - indent.length)).map((t) => ({ segs: [seg(indent + t, role)] }));
}

/** "12.3 s" style elapsed time. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}
