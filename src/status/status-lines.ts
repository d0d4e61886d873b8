import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { ragDir, statusTextPath, statusTmuxPath, tempPathFor } from '../storage/paths.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../storage/private-files.js';
import { formatStatus, type StatusInfo } from './status-model.js';

// The status line, pre-rendered: rag/status.txt (plain) and rag/status.tmux (tmux colours), so a
// status bar shows it with `cat` (tmux `#(cat …)`, WezTerm reads the file) instead of starting
// Node. Written whole to a temp file and renamed, so a reader sees the old line or the new one.
// Like status.json this is a cache, not a durability boundary: no fsync.

let seq = 0;

export async function writeStatusLines(
  info: StatusInfo,
  home: string,
  opts: { onlyIfChanged?: boolean } = {},
): Promise<void> {
  // A refresh of existing lines never creates the directory (it may have been removed on purpose).
  if (!opts.onlyIfChanged) await mkdir(ragDir(home), { recursive: true, mode: PRIVATE_DIR_MODE });
  const lines: [string, string][] = [
    [statusTextPath(home), `${formatStatus(info, 'plain')}\n`],
    [statusTmuxPath(home), `${formatStatus(info, 'tmux')}\n`],
  ];
  for (const [path, text] of lines) {
    if (opts.onlyIfChanged && (await readFile(path, 'utf8').catch(() => undefined)) === text) continue;
    const tmp = tempPathFor(path, `${process.pid}-${++seq}`);
    try {
      await writeFile(tmp, text, { mode: PRIVATE_FILE_MODE });
      await rename(tmp, path);
    } catch (err) {
      await unlink(tmp).catch(() => {});
      throw err;
    }
  }
}
