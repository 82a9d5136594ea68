import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../src/policy/capabilities.ts';
import { effectiveTools } from '../../src/policy/effective-tools.ts';
import { SECURITY_PROFILE_RULES } from '../../src/policy/security-profiles.ts';
import { STATIC_CAPABILITIES, STATIC_RISK_MAP } from '../../src/policy/static-maps.ts';
import { profileMembers, TOOL_PROFILES } from '../../src/policy/tool-profiles.ts';
import { CATALOG } from '../../src/tools/catalog-table.ts';

// ============================================================================================================
// CONFORMANCE TRANSCRIPTION: the only place the spec's tables are typed out again, so that the data in src can be
// checked against them. Every other policy test derives its names from CATALOG and the tables in src/policy.
//   - the seed's catalog (seed/tools-and-permissions.zh.txt, 完整工具目录; SPEC §3 "exactly the seed's tables")
//   - SPEC §4 step 1 (tool profiles), step 2 and I4 (security profiles)
// ============================================================================================================
const SPEC_CATALOG: ReadonlyArray<[string, string, string[]]> = [
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
const SPEC_CAPABILITY_COUNT = 24;
const SPEC_RESERVED = ['agents_list', 'agents_route'];
const SPEC_READ_ONLY = SPEC_CATALOG.filter(([, risk]) => risk === 'read_only').map(([name]) => name);
const SPEC_MINIMAL = [...SPEC_READ_ONLY, 'clarify', 'message', 'notify', 'todo'];
const SPEC_MESSAGING = [...SPEC_MINIMAL, 'image_generate', 'memory', 'text_to_speech', 'vision_analyze'];
const SPEC_CODING = [...SPEC_MESSAGING, 'write_file', 'edit_file', 'patch', 'knowledge_index', 'task', 'workflow'];
const SPEC_PROFILES = { minimal: SPEC_MINIMAL, messaging: SPEC_MESSAGING, coding: SPEC_CODING, full: SPEC_CATALOG.map(([name]) => name) };
const SPEC_DAEMON_DENIED_CAPABILITIES = ['process.exec', 'process.manage', 'code.exec', 'skill.install'];
const SPEC_DAEMON_NEVER = ['exec', 'execute_code', 'process', 'skill_install'];
// ============================================================================================================

describe('the tool catalog matches the spec (conformance)', () => {
  it('holds exactly the tools of the seed', () => {
    expect(CATALOG.map((t) => t.name).sort()).toEqual(SPEC_CATALOG.map(([n]) => n).sort());
  });

  it.each(SPEC_CATALOG)('%s is %s with capabilities %j', (name, risk, caps) => {
    expect(STATIC_RISK_MAP.get(name)).toBe(risk);
    expect([...(STATIC_CAPABILITIES.get(name) ?? [])].sort()).toEqual([...caps].sort());
  });

  it('declares only capabilities from the seed capability table', () => {
    for (const tool of CATALOG) for (const cap of tool.capabilities) expect(Object.keys(CAPABILITIES)).toContain(cap);
    expect(Object.keys(CAPABILITIES)).toHaveLength(SPEC_CAPABILITY_COUNT);
  });

  it('marks only the reserved names as reserved', () => {
    expect(CATALOG.filter((t) => t.reserved).map((t) => t.name).sort()).toEqual([...SPEC_RESERVED].sort());
  });

  it('gives every tool an object JSON Schema', () => {
    for (const tool of CATALOG) expect(tool.parameters.type).toBe('object');
  });
});

describe('the profiles match the spec (conformance)', () => {
  it.each(TOOL_PROFILES)('tool profile %s has exactly its members (SPEC §4 step 1)', (profile) => {
    expect([...profileMembers(profile)].sort()).toEqual([...new Set(SPEC_PROFILES[profile])].sort());
  });

  it('the daemon profile denies exactly the capabilities of I4, and public_gateway keeps those denials', () => {
    expect([...SECURITY_PROFILE_RULES.daemon.denyCapabilities].sort()).toEqual([...SPEC_DAEMON_DENIED_CAPABILITIES].sort());
    expect([...SECURITY_PROFILE_RULES.public_gateway.denyCapabilities].sort()).toEqual([...SPEC_DAEMON_DENIED_CAPABILITIES].sort());
    expect(SECURITY_PROFILE_RULES.personal_cli.denyCapabilities).toEqual([]);
  });

  it('public_gateway keeps only read_only tools, the others cap nothing', () => {
    expect(SECURITY_PROFILE_RULES.public_gateway.maxRisk).toBe('read_only');
    expect(SECURITY_PROFILE_RULES.daemon.maxRisk).toBe('dangerous');
    expect(SECURITY_PROFILE_RULES.personal_cli.maxRisk).toBe('dangerous');
  });

  it('the daemon profile removes the tools I4 names', () => {
    const ready = CATALOG.map((e) => ({ name: e.name, riskLevel: e.risk, capabilities: e.capabilities, ready: true }));
    const removed = effectiveTools(ready, { profile: 'full', allow: [], also_allow: [], deny: [], security: 'daemon', network: 'allow' }).removed;
    expect(removed.filter((t) => t.rule === 'security.daemon.capability').map((t) => t.name).sort()).toEqual([...SPEC_DAEMON_NEVER].sort());
  });
});
