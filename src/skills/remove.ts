import { mkdtemp, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config/schema.ts';
import type { Executor } from '../store/db.ts';
import { deleteSkill, lockSkillName } from '../store/skills.ts';
import { skillsDir } from './dir.ts';

export interface Removed {
  readonly name: string;
  readonly version: string;
  /** False when the recorded dir is not a skill dir of ours (outside the skills dir), so it was left alone. */
  readonly dir_removed: boolean;
}

/**
 * Deletes a skill's row and its directory. The directory is first renamed into a trash dir, so a failed
 * delete of the row puts it back whole; it is deleted once the row is gone. Null for an unknown skill.
 */
export async function removeSkill(config: Config, db: Executor, name: string): Promise<Removed | null> {
  const root = skillsDir(config);
  const moved: { from?: string; to?: string; trash?: string } = {};
  try {
    const row = await db.transaction(async (tx) => {
      await lockSkillName(tx, name);
      const row = await deleteSkill(tx, name);
      if (!row) return null;
      const dir = resolve(row.dir);
      // only ever delete a direct child of the skills dir, whatever the row says
      if (dirname(dir) !== root) return { row, dirRemoved: false };
      moved.trash = await mkdtemp(join(root, '.remove-'));
      try {
        await rename(dir, join(moved.trash, 'package'));
        Object.assign(moved, { from: dir, to: join(moved.trash, 'package') });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      return { row, dirRemoved: true };
    });
    if (!row) return null;
    return { name: row.row.name, version: row.row.version, dir_removed: row.dirRemoved };
  } catch (err) {
    if (moved.from && moved.to) await rename(moved.to, moved.from);
    throw err;
  } finally {
    if (moved.trash) await rm(moved.trash, { recursive: true, force: true });
  }
}
