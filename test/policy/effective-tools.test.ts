import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { effectiveTools, type ToolSelection } from '../../src/policy/effective-tools.ts';
import { profileMembers } from '../../src/policy/tool-profiles.ts';
import { CATALOG } from '../../src/tools/catalog-table.ts';
import { catalogFacts } from '../../src/tools/facts.ts';

const READ_ONLY = CATALOG.filter((t) => t.risk === 'read_only').map((t) => t.name);
// SPEC §4 step 1, spelled out independently of the profile table.
const MINIMAL = [...READ_ONLY, 'clarify', 'message', 'notify', 'todo'];
const MESSAGING = [...MINIMAL, 'image_generate', 'memory', 'text_to_speech', 'vision_analyze'];
const CODING = [...MESSAGING, 'write_file', 'edit_file', 'patch', 'knowledge_index', 'task', 'workflow'];

// Every service configured, so readiness does not hide what the policy does.
const config = defaultConfig({
  services: {
    web_search: { url: 'https://search.example.com' },
    vision: { base_url: 'https://v.example.com', api_key: 'k' },
    image: { base_url: 'https://i.example.com', api_key: 'k' },
    speech: { base_url: 'https://s.example.com', api_key: 'k' },
  },
  notify: { targets: { ops: { url: 'https://hooks.example.com/x' } } },
  model: { base_url: 'https://m.example.com/v1' },
});
const facts = CATALOG.map((e) => catalogFacts(e, config));
const sel = (over: Partial<ToolSelection> = {}): ToolSelection => ({
  profile: 'full', allow: [], also_allow: [], deny: [], security: 'personal_cli', network: 'allow', ...over,
});
const offered = (over: Partial<ToolSelection> = {}) => effectiveTools(facts, sel(over)).offered.map((t) => t.name).sort();
const removedBy = (over: Partial<ToolSelection>, name: string) => effectiveTools(facts, sel(over)).removed.find((t) => t.name === name)?.rule;
const RESERVED = ['agents_list', 'agents_route'];
const without = (names: string[], drop: string[]) => names.filter((n) => !drop.includes(n)).sort();

describe('tool profiles', () => {
  it.each([
    ['minimal', MINIMAL], ['messaging', MESSAGING], ['coding', CODING], ['full', CATALOG.map((t) => t.name)],
  ] as const)('%s has exactly its members', (profile, members) => {
    expect([...profileMembers(profile)].sort()).toEqual([...new Set(members)].sort());
    expect(offered({ profile })).toEqual(without([...new Set(members)], RESERVED));
  });

  it('lets a non-empty allow replace the profile', () => {
    expect(offered({ profile: 'minimal', allow: ['exec', 'read_file'] })).toEqual(['exec', 'read_file']);
    expect(removedBy({ profile: 'minimal', allow: ['exec'] }, 'list_dir')).toBe('tools.allow');
  });

  it('adds also_allow to the profile', () => {
    expect(offered({ profile: 'minimal', also_allow: ['exec'] })).toContain('exec');
  });

  it.each([
    [{ deny: ['exec'], allow: ['exec', 'read_file'] }],
    [{ deny: ['exec'], also_allow: ['exec'], profile: 'minimal' as const }],
    [{ deny: ['exec'] }],
  ])('lets deny beat allow and also_allow (I6): %j', (over) => {
    expect(offered(over)).not.toContain('exec');
    expect(removedBy(over, 'exec')).toBe('tools.deny');
  });

  it('never offers reserved names', () => {
    expect(removedBy({}, 'agents_list')).toBe('tools.reserved');
    expect(removedBy({ allow: ['agents_route'] }, 'agents_route')).toBe('tools.reserved');
    // also where the profile or a deny would have removed it anyway: the caller learns it is reserved
    expect(removedBy({ profile: 'minimal' }, 'agents_list')).toBe('tools.reserved');
    expect(removedBy({ deny: ['agents_list'] }, 'agents_list')).toBe('tools.reserved');
  });
});

describe('security profiles', () => {
  const DAEMON_DENIED_CAPS = ['process.exec', 'process.manage', 'code.exec', 'skill.install'];

  it('personal_cli removes nothing', () => {
    expect(offered({ security: 'personal_cli' })).toEqual(without(CATALOG.map((t) => t.name), RESERVED));
  });

  it('daemon removes exec, execute_code, process and skill_install (I4)', () => {
    for (const name of ['exec', 'execute_code', 'process', 'skill_install']) {
      expect(removedBy({ security: 'daemon' }, name)).toBe('security.daemon.capability');
    }
    expect(offered({ security: 'daemon' })).toContain('cronjob');
  });

  it.each(DAEMON_DENIED_CAPS)('daemon removes any tool declaring %s', (cap) => {
    const custom = { name: 'custom_tool', riskLevel: 'write' as const, capabilities: [cap], ready: true };
    const result = effectiveTools([custom], sel({ security: 'daemon', also_allow: ['custom_tool'] }));
    expect(result.offered).toHaveLength(0);
    expect(result.removed[0]?.rule).toBe('security.daemon.capability');
  });

  it('public_gateway keeps only read_only tools', () => {
    expect(offered({ security: 'public_gateway' })).toEqual(without(READ_ONLY, RESERVED));
    expect(removedBy({ security: 'public_gateway' }, 'write_file')).toBe('security.public_gateway.risk');
  });

  it('public_gateway removes a tool whose declared risk is raised above read_only', () => {
    const custom = { name: 'read_file', riskLevel: 'exec' as const, capabilities: ['fs.read'], ready: true };
    expect(effectiveTools([custom], sel({ security: 'public_gateway' })).offered).toHaveLength(0);
  });
});

describe('network policy', () => {
  const OUTBOUND = CATALOG.filter((t) => t.capabilities.includes('network.outbound')).map((t) => t.name);

  it('deny removes every tool with network.outbound', () => {
    for (const name of OUTBOUND) expect(removedBy({ network: 'deny' }, name)).toBe('network.deny');
    expect(OUTBOUND.sort()).toEqual(['image_generate', 'skill_install', 'text_to_speech', 'web_fetch', 'web_search']);
  });

  it('deny also removes tools that reach the network without declaring it: webhooks and the vision service', () => {
    for (const name of ['notify', 'message', 'vision_analyze']) expect(removedBy({ network: 'deny' }, name)).toBe('network.deny');
    expect(removedBy({ network: 'allow' }, 'notify')).toBeUndefined();
  });

  it.each(['restricted', 'allow'] as const)('%s keeps network tools', (network) => {
    expect(offered({ network })).toEqual(expect.arrayContaining(['web_fetch', 'web_search']));
  });
});

describe('context and readiness', () => {
  it('intersects with ctx.allowed_tools when non-empty', () => {
    expect(offered({ allowedTools: ['read_file', 'exec'], security: 'daemon' })).toEqual(['read_file']);
    expect(removedBy({ allowedTools: ['read_file'] }, 'list_dir')).toBe('context.allowed_tools');
  });

  it('removes an unready tool and names the missing key', () => {
    const bare = CATALOG.map((e) => catalogFacts(e, defaultConfig()));
    const removed = effectiveTools(bare, sel()).removed.find((t) => t.name === 'web_search');
    expect(removed?.rule).toBe('tools.not_ready');
    expect(removed?.reason).toContain('services.web_search.url');
  });
});
