import { basename } from 'node:path';

/** The versions the rewriter cycles through for a file (shared by parent and child). */
export function rewriteVersions(path: string): Buffer[] {
  const name = basename(path);
  return [
    Buffer.from(`${name}: version one, lantern harbor quartz.\n`),
    Buffer.from(
      `${name}: version two is longer, cedar prism tundra meadow signal copper orbit.\nsecond line\n`,
    ),
    Buffer.from(`${name}: v3\n`),
  ];
}
