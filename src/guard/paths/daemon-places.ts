import { resolve } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { skillsDir } from '../../skills/dir.ts';
import { stateRootsOf, type StateRoots } from './check-paths.ts';
import type { PathFs } from './real-path.ts';

/**
 * What no file tool may write (path.daemon_dir) under a configuration: the data dir but for the workspace
 * and safe write root inside it, and the installed skills. The guard (step 1, audited and counted) and the
 * tools themselves (at the moment they write) judge with the same places.
 */
export function daemonStateRoots(config: Config, fs: PathFs, now: () => number): () => Promise<StateRoots> {
  const workspace = resolve(config.tools.workspace);
  const safe = config.tools.safe_write_root !== '' ? [resolve(workspace, config.tools.safe_write_root)] : [];
  return stateRootsOf({ dataDir: config.daemon.data_dir, skills: skillsDir(config), open: [workspace, ...safe] }, fs, now);
}
