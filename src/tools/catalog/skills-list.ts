import type { Config } from '../../config/schema.ts';
import type { Executor } from '../../store/db.ts';
import { listSkills } from '../../store/skills.ts';
import { defineTool } from '../define.ts';
import { ok } from '../types.ts';

export function skillsListTool(config: Config, db: Executor) {
  return defineTool('skills_list', config, {
    async execute() {
      const rows = await listSkills(db);
      return ok({ skills: rows.map((r) => ({ name: r.name, version: r.version, description: r.description, enabled: r.enabled })) });
    },
  });
}
