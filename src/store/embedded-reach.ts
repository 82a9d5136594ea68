import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';

/** The OS account the embedded server runs as when echo-agent runs as root. */
export interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

/**
 * The first existing ancestor of `target` that `user` cannot pass through, described; null when all can be passed.
 * Ancestors not made yet are skipped: the daemon makes them traversable (ensureDirectory). Sync, so that
 * `config validate` (sync) and the daemon's start share this one check (rule embedded.postgres_reach).
 */
export function untraversable(target: string, user: OsUser): { dir: string; text: string; rootOnly: boolean } | null {
  for (let dir = path.dirname(path.resolve(target)); ; dir = path.dirname(dir)) {
    let s;
    try {
      s = statSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (dir === path.dirname(dir)) return null;
      continue;
    }
    const traversable = (s.mode & 0o001) !== 0 || (s.gid === user.gid && (s.mode & 0o010) !== 0) || s.uid === user.uid;
    if (!traversable) {
      // only root passes it (owner root, no x for a non-root group or others): no account the daemon could run as reaches data_dir
      const rootOnly = s.uid === 0 && (s.mode & 0o001) === 0 && ((s.mode & 0o010) === 0 || s.gid === 0);
      return { dir, text: `${dir} is not traversable (mode ${(s.mode & 0o777).toString(8)})`, rootOnly };
    }
    if (dir === path.dirname(dir)) return null;
  }
}

/**
 * OS user postgres as it is now, read synchronously (`config validate`); one that does not exist yet is made by the
 * daemon with a new group, so only what others may do counts (uid and gid -1 match nothing).
 */
export function postgresAccountNow(): OsUser {
  const id = (flag: string): number => {
    try {
      return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    } catch {
      return -1;
    }
  };
  return { uid: id('-u'), gid: id('-g') };
}
