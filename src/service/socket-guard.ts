import { lstat, mkdir } from 'node:fs/promises';
import { createError, type KorttyError } from '../errors.js';

// Who may talk to the query service: only its owner. The socket lives in an owner-only (0700)
// directory and is itself 0600; both sides check both before use (lstat, so a symlink is never
// followed) and refuse anything owned by another user or open to others, saying what to fix.
// The directory check is the one that matters: nobody else can create, replace or rename a
// socket inside a 0700 directory that is ours.

/** Linux's sun_path is 108 bytes including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 107;

const uid = () => process.geteuid?.() ?? 0;
const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');

export type Inspection = { state: 'ok' } | { state: 'missing' } | { state: 'refused'; error: KorttyError };

function refused(path: string, reason: string): Inspection {
  return { state: 'refused', error: createError('SERVICE_REFUSED', { path, reason }) };
}

export async function inspectServiceDir(dir: string): Promise<Inspection> {
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return refused(dir, `cannot inspect the query service directory (${(err as Error).message})`);
  }
  if (!st.isDirectory()) {
    return refused(
      dir,
      `the query service directory is a ${st.isSymbolicLink() ? 'symbolic link' : 'file'}; remove it`,
    );
  }
  if (st.uid !== uid()) {
    return refused(
      dir,
      `the query service directory belongs to uid ${st.uid}, not to you (uid ${uid()}); remove it`,
    );
  }
  if ((st.mode & 0o077) !== 0) {
    return refused(
      dir,
      `the query service directory has mode ${octal(st.mode)}, open to other users; it must be 0700 (chmod 700 it, or remove it)`,
    );
  }
  return { state: 'ok' };
}

export async function inspectSocket(path: string): Promise<Inspection> {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    return refused(
      path,
      `the socket path is longer than the ${MAX_SOCKET_PATH_BYTES} bytes a Unix socket allows; use a shorter KORTTY_HOME`,
    );
  }
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return refused(path, `cannot inspect the query service socket (${(err as Error).message})`);
  }
  if (!st.isSocket()) return refused(path, 'is not a socket; remove it');
  if (st.uid !== uid()) {
    return refused(
      path,
      `the query service socket belongs to uid ${st.uid}, not to you (uid ${uid()}); remove it`,
    );
  }
  if ((st.mode & 0o077) !== 0) {
    return refused(
      path,
      `the query service socket has mode ${octal(st.mode)}, open to other users; it must be 0600 (remove it; the service recreates it)`,
    );
  }
  return { state: 'ok' };
}

/** For the service: creates the directory owner-only, or checks an existing one. */
export async function ensureServiceDir(dir: string): Promise<void> {
  const before = await inspectServiceDir(dir);
  if (before.state === 'refused') throw before.error;
  if (before.state === 'missing') {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const after = await inspectServiceDir(dir);
    if (after.state !== 'ok') {
      throw after.state === 'refused'
        ? after.error
        : createError('SERVICE_REFUSED', {
            path: dir,
            reason: 'the directory vanished while it was created',
          });
    }
  }
}
