import { readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/schema.ts';
import type { Executor } from '../store/db.ts';
import { getSkill, lockSkillName } from '../store/skills.ts';
import { skillsDir } from './dir.ts';
import { REPLACES_FILE, WORK_PREFIX, type Replaces } from './install.ts';
import { loadManifest } from './manifest.ts';

/**
 * Work dirs this old belong to no live install: skill_install times out after
 * 120 s, and a failed install settles its files under the name's lock at once,
 * leaving its work dir only when the database could not be asked.
 */
export const STALE_INSTALL_MS = 10 * 60_000;

const exists = (path: string) => stat(path).then(() => true, () => false);

export interface InstallRecovery {
  /** Skills whose recorded version was put back in place. */
  readonly restored: readonly { name: string; version: string }[];
  /** Work dirs removed. */
  readonly removed: readonly string[];
  /** Work dirs holding a previous version whose manifest no longer loads: left for an operator. */
  readonly kept: readonly { dir: string; why: string }[];
}

/**
 * After a crash in the middle of skill_install: the work dir holds `previous`
 * (the version the database still records) when the swap happened but its
 * transaction never committed. That version goes back in place; then the work
 * dir goes. Runs under the skill name's lock, like an install.
 */
export async function recoverSkillInstalls(config: Config, db: Executor, opts: { minAgeMs?: number } = {}): Promise<InstallRecovery> {
  const root = skillsDir(config);
  const minAge = opts.minAgeMs ?? STALE_INSTALL_MS;
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const restored: { name: string; version: string }[] = [];
  const removed: string[] = [];
  const kept: { dir: string; why: string }[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || !e.name.startsWith(WORK_PREFIX)) continue;
    const work = join(root, e.name);
    const info = await stat(work).catch(() => null);
    if (!info || Date.now() - info.mtimeMs < minAge) continue;
    const previous = join(work, 'previous');
    if (await exists(previous)) {
      const loaded = await loadManifest(previous);
      // the only copy of a version that may still be recorded: never delete what cannot be identified
      if (!loaded.ok) {
        kept.push({ dir: e.name, why: loaded.problems.join('; ') });
        continue;
      }
      const { name, version } = loaded.manifest;
      // work dirs from before replaces.json was written carry only the version
      const replaces = await readFile(join(work, REPLACES_FILE), 'utf8').then((t) => JSON.parse(t) as Replaces, () => null);
      await db.transaction(async (tx) => {
        await lockSkillName(tx, name);
        // another recovery may have put it back while this one waited for the lock
        if (!(await exists(previous))) return;
        const recorded = await getSkill(tx, name);
        if (recorded?.version !== version) return; // the new version committed: the old one is garbage
        // the same version installed again since, say after a remove: that install's files stand
        if (replaces && recorded.installed_at.toISOString() !== replaces.installed_at) return;
        const dir = join(root, name);
        await rm(dir, { recursive: true, force: true });
        await rename(previous, dir);
        restored.push({ name, version });
      });
    }
    await rm(work, { recursive: true, force: true });
    removed.push(e.name);
  }
  return { restored, removed, kept };
}
