import { join } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { readLimited, SKILL_DOC_FILE } from '../../skills/manifest.ts';
import type { Executor } from '../../store/db.ts';
import { getSkill } from '../../store/skills.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';

export const SKILL_DOC_MAX_BYTES = 64 * 1024;

/** A skill's record, manifest and SKILL.md (at most SKILL_DOC_MAX_BYTES of it). */
export function skillViewTool(config: Config, db: Executor) {
  return defineTool('skill_view', config, {
    async execute(params) {
      const name = String(params.name);
      const row = await getSkill(db, name);
      if (!row) return fail('business', `skill_view: name: no skill named ${JSON.stringify(name)} is installed`);
      const doc = await readLimited(join(row.dir, SKILL_DOC_FILE), SKILL_DOC_MAX_BYTES);
      return ok({
        name: row.name, version: row.version, description: row.description, enabled: row.enabled,
        installed_by: row.installed_by, installed_at: row.installed_at.toISOString(), updated_at: row.updated_at.toISOString(),
        source: row.source, dir: row.dir, manifest: row.manifest,
        skill_md: doc?.text ?? null, skill_md_truncated: doc?.truncated ?? false,
      });
    },
  });
}
