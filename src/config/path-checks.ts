import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config } from './schema.ts';
import { nowhere, type Locate } from './locate.ts';
import { postgresAccountNow, untraversable, type OsUser } from '../store/embedded-reach.ts';
import { warningAt, type ConfigWarning } from './warnings.ts';

/**
 * Directories the daemon must be able to make and write, checked on this machine as `config validate`
 * runs: a file in the path stops the daemon (exit 78) whoever runs it (the data dir: when it runs the embedded database); a directory this account cannot
 * write is only a warning, since the daemon may run as another account.
 */
export function directoryWarnings(config: Config, locate: Locate = nowhere, postgres: () => OsUser = postgresAccountNow): ConfigWarning[] {
  const out: ConfigWarning[] = [];
  const check = (keys: [string, string], dir: string) => {
    const problem = unusableDirectory(resolve(dir));
    // a file in the path stops the daemon whoever runs it; the data dir matters only for the embedded database
    const fatal = problem?.fileInPath && (keys[0] === 'tools' || !config.database.url);
    if (problem) out.push(warningAt(locate, keys, `${resolve(dir)} ${problem.text}`, fatal));
  };
  check(['daemon', 'data_dir'], config.daemon.data_dir);
  const unreachable = out.length === 0 ? postgresCannotReach(config, postgres) : null;
  if (unreachable) out.push(warningAt(locate, ['daemon', 'data_dir'], unreachable.text, unreachable.fatal));
  check(['tools', 'workspace'], config.tools.workspace);
  return out;
}

/**
 * Rule config.data_dir_postgres_reach: as root, the daemon's start check (embedded-reach untraversable, exit 69) run
 * here. A problem (exit 78) when only root can pass the blocking directory: the daemon then fails whoever runs it
 * (as root its server runs as postgres; no other account gets in). A warning when the directory's owner or group
 * could run the daemon there instead (a service account's 0700 home).
 */
function postgresCannotReach(config: Config, postgres: () => OsUser): { text: string; fatal: boolean } | null {
  if (config.database.url || process.getuid?.() !== 0) return null;
  const dataDir = resolve(config.daemon.data_dir);
  let blocked;
  try {
    blocked = untraversable(dataDir, postgres());
  } catch {
    return null; // unreadable: unusableDirectory has said so
  }
  if (!blocked) return null;
  const text = `${dataDir}: OS user postgres cannot reach it: ${blocked.text}; a daemon run as root exits 69 there (its embedded PostgreSQL runs as postgres)`;
  return blocked.rootOnly
    ? { text: `${text}, and no other account can reach it; choose a daemon.data_dir outside ${blocked.dir} or allow o+x on it`, fatal: true }
    : { text: `${text}; fine if the daemon runs as the account that owns ${blocked.dir}, else allow o+x on it`, fatal: false };
}

function unusableDirectory(dir: string): { text: string; fileInPath?: true } | null {
  // the nearest part of the path that exists: it must be a directory the daemon can write below
  for (let p = dir; ; p = dirname(p)) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && dirname(p) !== p) continue;
      if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      return { text: `cannot be checked (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    if (!isDir) return { text: `cannot be made: ${p} is a file, not a directory (the daemon would exit 78)`, fileInPath: true };
    try {
      accessSync(p, constants.W_OK | constants.X_OK);
      return null;
    } catch {
      return { text: p === dir ? 'is not writable by this account (fine if the daemon runs as another that can write it)'
        : `cannot be made by this account: ${p} is not writable (fine if the daemon runs as another that can)` };
    }
  }
}
