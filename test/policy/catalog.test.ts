import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../src/policy/capabilities.ts';
import { STATIC_CAPABILITIES, STATIC_RISK_MAP } from '../../src/policy/static-maps.ts';
import { CATALOG } from '../../src/tools/catalog-table.ts';

// Transcribed from the seed's catalog (seed/tools-and-permissions.zh.txt, 完整工具目录).
const SEED_CATALOG: ReadonlyArray<[string, string, string[]]> = [
  ['read_file', 'read_only', ['fs.read']],
  ['list_dir', 'read_only', ['fs.read']],
  ['search_files', 'read_only', ['fs.read']],
  ['knowledge_search', 'read_only', ['knowledge.read']],
  ['session_search', 'read_only', ['session.read']],
  ['skills_list', 'read_only', ['skill.read']],
  ['skill_view', 'read_only', ['skill.read']],
  ['agents_list', 'read_only', []],
  ['agents_route', 'read_only', []],
  ['web_fetch', 'read_only', ['network.outbound']],
  ['web_search', 'read_only', ['network.outbound']],
  ['vision_analyze', 'read_only', ['media.read']],
  ['read_spill', 'read_only', ['fs.read']],
  ['write_file', 'write', ['fs.write']],
  ['edit_file', 'write', ['fs.read', 'fs.write']],
  ['patch', 'write', ['fs.read', 'fs.write']],
  ['knowledge_index', 'write', ['knowledge.write', 'fs.read']],
  ['todo', 'write', ['task.write']],
  ['task', 'write', ['task.write']],
  ['workflow', 'write', ['workflow.write']],
  ['notify', 'write', ['message.send']],
  ['message', 'write', ['message.send']],
  ['clarify', 'write', ['message.ask']],
  ['memory', 'write', ['memory.read', 'memory.write']],
  ['image_generate', 'write', ['media.generate', 'network.outbound']],
  ['text_to_speech', 'write', ['media.generate', 'network.outbound']],
  ['exec', 'exec', ['process.exec']],
  ['execute_code', 'exec', ['code.exec', 'process.exec']],
  ['process', 'exec', ['process.exec', 'process.manage']],
  ['delegate_task', 'exec', []],
  ['spawn_task', 'exec', []],
  ['cronjob', 'dangerous', ['scheduler.write']],
  ['skill_install', 'dangerous', ['skill.install', 'network.outbound', 'fs.write']],
  ['skill_manage', 'dangerous', ['skill.write', 'fs.write']],
];

describe('the tool catalog', () => {
  it('holds exactly the 34 tools of the seed', () => {
    expect(CATALOG.map((t) => t.name).sort()).toEqual(SEED_CATALOG.map(([n]) => n).sort());
    expect(CATALOG).toHaveLength(34);
  });

  it.each(SEED_CATALOG)('%s is %s with capabilities %j', (name, risk, caps) => {
    expect(STATIC_RISK_MAP.get(name)).toBe(risk);
    expect([...(STATIC_CAPABILITIES.get(name) ?? [])].sort()).toEqual([...caps].sort());
  });

  it('declares only capabilities from the seed capability table', () => {
    for (const tool of CATALOG) for (const cap of tool.capabilities) expect(Object.keys(CAPABILITIES)).toContain(cap);
    expect(Object.keys(CAPABILITIES)).toHaveLength(24);
  });

  it('marks only agents_list and agents_route as reserved', () => {
    expect(CATALOG.filter((t) => t.reserved).map((t) => t.name).sort()).toEqual(['agents_list', 'agents_route']);
  });

  it('gives every tool an object JSON Schema', () => {
    for (const tool of CATALOG) expect(tool.parameters.type).toBe('object');
  });
});
