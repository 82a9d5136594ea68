import type { Config } from '../../config/schema.ts';
import { removeSkill } from '../../skills/remove.ts';
import type { Executor } from '../../store/db.ts';
import { setSkillEnabled } from '../../store/skills.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';

const unknown = (name: string) => fail('business', `skill_manage: name: no skill named ${JSON.stringify(name)} is installed`);

/** skill_manage (DANGEROUS): enable, disable or remove (row and directory) an installed skill. */
export function skillManageTool(config: Config, db: Executor) {
  return defineTool('skill_manage', config, {
    async execute(params) {
      const name = String(params.name);
      switch (params.action) {
        case 'enable':
        case 'disable': {
          const row = await setSkillEnabled(db, name, params.action === 'enable');
          return row ? ok({ name, action: params.action, enabled: row.enabled }) : unknown(name);
        }
        case 'remove': {
          const removed = await removeSkill(config, db, name);
          return removed ? ok({ action: 'remove', ...removed }) : unknown(name);
        }
        default:
          return fail('validation', 'action: expected one of enable, disable, remove');
      }
    },
  });
}
