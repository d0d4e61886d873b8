// Pure: is a path on a filesystem where inotify cannot be trusted? Changes made by other machines
// (NFS, SMB, 9p/virtiofs shares, FUSE network mounts) never reach this kernel's inotify, so such
// sources get "limited monitoring" and rely on the periodic rescan. Two signals: the statfs magic
// number (exact for kernel filesystems) and /proc/mounts (names the FUSE driver, e.g. fuse.sshfs).

/** statfs f_type values of network and host-shared filesystems (linux/magic.h). */
const NETWORK_MAGIC: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x73757245, 'coda'],
  [0x5346414f, 'afs'],
  [0x6b414653, 'afs'],
  [0x01021997, '9p'],
  [0x00c36400, 'ceph'],
  [0x564c, 'ncp'],
  [0x0bd00bd0, 'lustre'],
]);

/** /proc/mounts fstype names (after any `fuse.` prefix) that mean a remote or host-shared mount. */
const NETWORK_TYPES: ReadonlySet<string> = new Set([
  'nfs',
  'nfs4',
  'cifs',
  'smb3',
  'smbfs',
  '9p',
  'virtiofs',
  'drvfs',
  'afs',
  'ceph',
  'ceph-fuse',
  'glusterfs',
  'lustre',
  'davfs',
  'davfs2',
  'ncpfs',
  'coda',
  'sshfs',
  'rclone',
  's3fs',
  'gcsfuse',
  'goofys',
  'blobfuse',
  'blobfuse2',
  'curlftpfs',
  'smbnetfs',
]);

export interface MountEntry {
  mountPoint: string;
  fstype: string;
}

/** /proc/mounts lines: `device mountpoint fstype options dump pass`, spaces escaped as \040. */
export function parseMounts(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    if (f.length < 3) continue;
    out.push({ mountPoint: unescapeMount(f[1]!), fstype: f[2]! });
  }
  return out;
}

function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

/** The mount a path lies on: the longest mount point containing it (the last one wins on ties). */
export function mountFor(mounts: readonly MountEntry[], absPath: string): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const m of mounts) {
    const mp = m.mountPoint;
    const inside = mp === '/' || absPath === mp || absPath.startsWith(`${mp}/`);
    if (inside && (!best || mp.length >= best.mountPoint.length)) best = m;
  }
  return best;
}

/** The network filesystem's name, or undefined for a local one. */
export function networkFsName(fstype: string): string | undefined {
  const base = fstype.startsWith('fuse.')
    ? fstype.slice(5)
    : fstype.startsWith('fuseblk.')
      ? fstype.slice(8)
      : fstype;
  return NETWORK_TYPES.has(base) ? fstype : undefined;
}

export function networkMagicName(type: number): string | undefined {
  return NETWORK_MAGIC.get(type);
}

/** Either signal suffices: statfs works without /proc, /proc/mounts names FUSE drivers and types
 * without a magic number here (virtiofs, drvfs). */
export function classifyFs(
  statfsType: number | undefined,
  mount: MountEntry | undefined,
): string | undefined {
  const byMagic = statfsType === undefined ? undefined : networkMagicName(statfsType);
  return byMagic ?? (mount ? networkFsName(mount.fstype) : undefined);
}
