import { CATALOG } from '../tools/catalog-table.ts';

export const TOOL_PROFILES = ['minimal', 'messaging', 'coding', 'full'] as const;
export type ToolProfile = (typeof TOOL_PROFILES)[number];

/**
 * SPEC §4 profiles as data: each profile is its base plus the names it adds.
 * `'read_only'` stands for every read_only tool of the catalog, `'*'` for every tool.
 */
const PROFILE_DEFINITION: Readonly<Record<ToolProfile, { base?: ToolProfile; adds: readonly string[] }>> = {
  minimal: { adds: ['read_only', 'clarify', 'message', 'notify', 'todo'] },
  messaging: { base: 'minimal', adds: ['image_generate', 'memory', 'text_to_speech', 'vision_analyze'] },
  coding: { base: 'messaging', adds: ['write_file', 'edit_file', 'patch', 'knowledge_index', 'task', 'workflow'] },
  full: { adds: ['*'] },
};

/** The tool names a profile contains, from the catalog (reserved names included; they are filtered later). */
export function profileMembers(profile: ToolProfile, known: readonly { name: string; risk: string }[] = CATALOG): ReadonlySet<string> {
  const def = PROFILE_DEFINITION[profile];
  const members = new Set(def.base ? profileMembers(def.base, known) : []);
  for (const item of def.adds) {
    if (item === '*') known.forEach((t) => members.add(t.name));
    else if (item === 'read_only') known.filter((t) => t.risk === 'read_only').forEach((t) => members.add(t.name));
    else members.add(item);
  }
  return members;
}
