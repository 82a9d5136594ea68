import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WorkspaceDirs {
  readonly root: string;
  /** The workspace the tools are confined to. */
  readonly ws: string;
  /** A sibling directory they must never reach. */
  readonly outside: string;
}

/** A fresh temp root, symlinks resolved, holding an empty workspace and an empty `outside` beside it. */
export async function workspaceAndOutside(prefix: string): Promise<WorkspaceDirs> {
  const root = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const dirs = { root, ws: join(root, 'ws'), outside: join(root, 'outside') };
  await mkdir(dirs.ws);
  await mkdir(dirs.outside);
  return dirs;
}
