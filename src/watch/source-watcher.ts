import { watch } from 'chokidar';
import { createSourceFilter } from './source-filter.js';
import type { WatchTarget } from './targets.js';

// chokidar 5 on one source (6 needs Node 22). One watcher per source, so an error is attributed
// to exactly the source it hit. Symbolic links are not followed and the scanner's skip rules
// prune the watched tree. Events are hints only: the scan that follows decides what changed.

export type ChangeKind = 'file' | 'dir' | 'rules';

export interface SourceWatchHandlers {
  onChange(kind: ChangeKind, path: string): void;
  onError(err: Error): void;
  onReady(): void;
}

export interface SourceWatch {
  close(): Promise<void>;
}

/** Test hook: `KORTTY_WATCH_FAIL=<source id>[,<source id>…]` makes those watchers fail once ready. */
function forcedFailure(sourceId: string): boolean {
  const spec = process.env.KORTTY_WATCH_FAIL;
  return spec?.split(',').includes(sourceId) ?? false;
}

export function startSourceWatcher(target: WatchTarget, h: SourceWatchHandlers): SourceWatch {
  const filter = createSourceFilter(target, target.options);
  let closed = false;
  const fsw = watch(filter.watchPath, {
    persistent: true,
    ignoreInitial: true,
    followSymlinks: false,
    ignorePermissionErrors: true,
    depth: target.kind === 'file' ? 0 : undefined,
    ignored: (p: string, stats?: import('node:fs').Stats) => filter.ignored(p, stats),
  });
  fsw.on('all', (event, path) => {
    if (closed) return;
    const kind = event === 'addDir' || event === 'unlinkDir' ? 'dir' : 'file';
    const v = filter.verdict(path, kind);
    if (!v.relevant) return;
    if ('rules' in v && v.rules) filter.invalidate();
    h.onChange('rules' in v && v.rules ? 'rules' : kind, path);
  });
  fsw.on('error', (err) => {
    if (!closed) h.onError(err as Error);
  });
  fsw.on('ready', () => {
    if (closed) return;
    if (forcedFailure(target.sourceId)) {
      fsw.emit(
        'error',
        Object.assign(new Error('forced watcher error (KORTTY_WATCH_FAIL)'), { code: 'EFORCED' }),
      );
      return;
    }
    h.onReady();
  });
  return {
    async close() {
      closed = true;
      await fsw.close();
    },
  };
}
