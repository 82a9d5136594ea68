import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config } from './schema.ts';
import { nowhere, type Locate } from './locate.ts';
import { warningAt, type ConfigWarning } from './warnings.ts';

/**
 * Directories the daemon must be able to make and write, checked on this machine as `config validate`
 * runs: a file in the path stops the daemon (exit 78) whoever runs it (the data dir: when it runs the embedded database); a directory this account cannot
 * write is only a warning, since the daemon may run as another account.
 */
export function directoryWarnings(config: Config, locate: Locate = nowhere): ConfigWarning[] {
  const out: ConfigWarning[] = [];
  const check = (keys: [string, string], dir: string) => {
    const problem = unusableDirectory(resolve(dir));
    // a file in the path stops the daemon whoever runs it; the data dir matters only for the embedded database
    const fatal = problem?.fileInPath && (keys[0] === 'tools' || !config.database.url);
    if (problem) out.push(warningAt(locate, keys, `${resolve(dir)} ${problem.text}`, fatal));
  };
  check(['daemon', 'data_dir'], config.daemon.data_dir);
  check(['tools', 'workspace'], config.tools.workspace);
  return out;
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
