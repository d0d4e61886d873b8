import * as fsp from 'node:fs/promises';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';

// All durable writes go through an FsEnv so crash/power-loss tests can record and fault-inject
// every write, fsync, rename and directory fsync (LevelDB's Env idea).

export interface FsFile {
  write(data: Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface FsEnv {
  /** Create (exclusive) a new file for writing. */
  create(path: string, mode?: number): Promise<FsFile>;
  readFile(path: string): Promise<Buffer>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** fsync a directory so a rename inside it is durable. */
  syncDir(dir: string): Promise<void>;
  readdir(dir: string): Promise<string[]>;
  mkdir(dir: string): Promise<void>;
  exists(path: string): Promise<boolean>;
}

export function createNodeFsEnv(): FsEnv {
  return {
    async create(path, mode = PRIVATE_FILE_MODE) {
      const fh = await fsp.open(path, 'wx', mode);
      return {
        async write(data) {
          let off = 0;
          while (off < data.length) {
            const { bytesWritten } = await fh.write(data, off, data.length - off);
            off += bytesWritten;
          }
        },
        sync: () => fh.sync(),
        close: () => fh.close(),
      };
    },
    readFile: (p) => fsp.readFile(p),
    rename: (a, b) => fsp.rename(a, b),
    unlink: (p) => fsp.unlink(p),
    async syncDir(dir) {
      const fh = await fsp.open(dir, 'r');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    },
    readdir: (d) => fsp.readdir(d),
    async mkdir(d) {
      await fsp.mkdir(d, { recursive: true, mode: PRIVATE_DIR_MODE });
    },
    async exists(p) {
      try {
        await fsp.lstat(p);
        return true;
      } catch {
        return false;
      }
    },
  };
}

export const nodeFsEnv: FsEnv = createNodeFsEnv();
