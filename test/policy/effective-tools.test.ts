import { describe, expect, it } from 'vitest';
import { createAgentRuntime } from '../../src/agent/runtime.ts';
import { checkCallGate } from '../../src/cli/commands/check-call.ts';
import { toolsListView } from '../../src/cli/commands/tools-list.ts';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { effectiveTools, securityFor, selectionFor, type EffectiveTools, type ToolSelection } from '../../src/policy/effective-tools.ts';
import { SECURITY_PROFILE_RULES, SECURITY_PROFILES, type SecurityProfile } from '../../src/policy/security-profiles.ts';
import { severity } from '../../src/policy/risk.ts';
import { profileMembers, TOOL_PROFILES } from '../../src/policy/tool-profiles.ts';
import { jobToolSet } from '../../src/session/job-preview.ts';
import { CATALOG } from '../../src/tools/catalog-table.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogFacts } from '../../src/tools/facts.ts';
import { useTestDatabase } from '../support/db.ts';

// Names come from CATALOG and the tables in src/policy; catalog.test.ts holds the one transcription of the spec.

// Every service configured, so readiness does not hide what the policy does.
const SERVICES = {
  services: {
    web_search: { url: 'https://search.example.com' },
    vision: { base_url: 'https://v.example.com', api_key: 'k' },
    image: { base_url: 'https://i.example.com', api_key: 'k' },
    speech: { base_url: 'https://s.example.com', api_key: 'k' },
  },
  notify: { targets: { ops: { url: 'https://hooks.example.com/x' } } },
  model: { base_url: 'https://m.example.com/v1' },
};
const config = defaultConfig(SERVICES);
const facts = CATALOG.map((e) => catalogFacts(e, config));
const sel = (over: Partial<ToolSelection> = {}): ToolSelection => ({
  profile: 'full', allow: [], also_allow: [], deny: [], security: 'personal_cli', network: 'allow', ...over,
});
const offered = (over: Partial<ToolSelection> = {}) => effectiveTools(facts, sel(over)).offered.map((t) => t.name).sort();
const removedBy = (over: Partial<ToolSelection>, name: string) => effectiveTools(facts, sel(over)).removed.find((t) => t.name === name)?.rule;
const names = (pick: (e: (typeof CATALOG)[number]) => boolean) => CATALOG.filter(pick).map((e) => e.name).sort();
const RESERVED = names((e) => e.reserved === true);
const ALL = names(() => true);
const without = (list: readonly string[], drop: readonly string[]) => list.filter((n) => !drop.includes(n)).sort();
const deniedBy = (security: SecurityProfile) => names((e) => e.capabilities.some((c) => SECURITY_PROFILE_RULES[security].denyCapabilities.includes(c)));
const aboveCap = (security: SecurityProfile) => names((e) => severity(e.risk) > severity(SECURITY_PROFILE_RULES[security].maxRisk));
// an exec tool and a read-only one, taken from the catalog
const EXEC = CATALOG.find((e) => e.capabilities.includes('process.exec'))!.name;
const READER = CATALOG.find((e) => e.risk === 'read_only' && !e.reserved && e.capabilities.length > 0)!.name;

describe('tool profiles', () => {
  it.each(TOOL_PROFILES)('%s offers its members, less the reserved names', (profile) => {
    expect(offered({ profile })).toEqual(without([...profileMembers(profile)], RESERVED));
  });

  it('lets a non-empty allow replace the profile', () => {
    expect(offered({ profile: 'minimal', allow: [EXEC, READER] })).toEqual([EXEC, READER].sort());
    const other = [...profileMembers('minimal')].find((n) => n !== READER && !RESERVED.includes(n))!;
    expect(removedBy({ profile: 'minimal', allow: [EXEC] }, other)).toBe('tools.allow');
  });

  it('adds also_allow to the profile', () => {
    expect(profileMembers('minimal').has(EXEC)).toBe(false);
    expect(offered({ profile: 'minimal', also_allow: [EXEC] })).toContain(EXEC);
  });

  it.each([
    [{ deny: [EXEC], allow: [EXEC, READER] }],
    [{ deny: [EXEC], also_allow: [EXEC], profile: 'minimal' as const }],
    [{ deny: [EXEC] }],
  ])('lets deny beat allow and also_allow (I6): %j', (over) => {
    expect(offered(over)).not.toContain(EXEC);
    expect(removedBy(over, EXEC)).toBe('tools.deny');
  });

  it.each(RESERVED)('never offers the reserved name %s, whatever else would remove it', (name) => {
    for (const over of [{}, { allow: [name] }, { profile: 'minimal' as const }, { deny: [name] }]) expect(removedBy(over, name)).toBe('tools.reserved');
  });
});

describe('security profiles', () => {
  it.each(SECURITY_PROFILES)('%s removes the tools its capabilities and risk cap name, and only those', (security) => {
    const gone = [...new Set([...deniedBy(security), ...aboveCap(security)])];
    expect(offered({ security })).toEqual(without(ALL, [...RESERVED, ...gone]));
    const rule = SECURITY_PROFILE_RULES[security].rule;
    for (const name of without(gone, RESERVED)) expect(removedBy({ security }, name)).toBe(rule);
  });

  it.each(SECURITY_PROFILE_RULES.daemon.denyCapabilities)('daemon removes any tool declaring %s (I4)', (cap) => {
    const custom = { name: 'custom_tool', riskLevel: 'write' as const, capabilities: [cap], ready: true };
    const result = effectiveTools([custom], sel({ security: 'daemon', also_allow: ['custom_tool'] }));
    expect(result.offered).toHaveLength(0);
    expect(result.removed[0]?.rule).toBe('security.daemon.capability');
  });

  it('public_gateway removes a tool whose declared risk is raised above its cap', () => {
    const custom = { name: READER, riskLevel: 'exec' as const, capabilities: [], ready: true };
    expect(effectiveTools([custom], sel({ security: 'public_gateway' })).offered).toHaveLength(0);
  });
});

describe('network policy', () => {
  const OUTBOUND = names((e) => e.capabilities.includes('network.outbound'));
  const REACHES = names((e) => e.reachesNetwork === true);

  it('deny removes every tool with network.outbound, and those that reach it without declaring it', () => {
    expect(OUTBOUND.length).toBeGreaterThan(0);
    expect(REACHES.length).toBeGreaterThan(0);
    for (const name of [...OUTBOUND, ...REACHES]) expect(removedBy({ network: 'deny' }, name)).toBe('network.deny');
    expect(offered({ network: 'deny' })).toEqual(without(ALL, [...RESERVED, ...OUTBOUND, ...REACHES]));
  });

  it.each(['restricted', 'allow'] as const)('%s keeps network tools', (network) => {
    expect(offered({ network })).toEqual(expect.arrayContaining(without([...OUTBOUND, ...REACHES], RESERVED)));
  });
});

describe('context and readiness', () => {
  it('intersects with ctx.allowed_tools when non-empty', () => {
    expect(offered({ allowedTools: [READER, EXEC], security: 'daemon' })).toEqual([READER]);
    const other = ALL.find((n) => n !== READER && !RESERVED.includes(n))!;
    expect(removedBy({ allowedTools: [READER] }, other)).toBe('context.allowed_tools');
  });

  it('removes each unready tool and names the missing key', () => {
    const bare = defaultConfig();
    const needing = CATALOG.filter((e) => (e.requires ?? []).length > 0 && !e.reserved);
    expect(needing.length).toBeGreaterThan(0);
    const removed = effectiveTools(CATALOG.map((e) => catalogFacts(e, bare)), sel()).removed;
    for (const e of needing) {
      const r = removed.find((t) => t.name === e.name);
      expect(r?.rule, e.name).toBe('tools.not_ready');
      expect(r?.reason, e.name).toContain(e.requires![0]!);
    }
  });
});

describe('securityFor', () => {
  it.each(SECURITY_PROFILES)('config %s: attended as configured, unattended never looser than daemon (I4)', (profile) => {
    const cfg = defaultConfig({ security: { profile } });
    expect(securityFor(cfg, { unattended: false })).toBe(profile);
    const unattended = securityFor(cfg, { unattended: true });
    expect(SECURITY_PROFILES.indexOf(unattended)).toBe(Math.max(SECURITY_PROFILES.indexOf(profile), SECURITY_PROFILES.indexOf('daemon')));
  });
});

// check call, the daemon's runtime and gate, a job's preview and tools list each compute an unattended context's
// tool set; if one of them worked out the security profile or the selection on its own, they would disagree here.
describe('every caller sees the same unattended tool set', () => {
  const database = useTestDatabase();
  const ctx = buildContext({ unattended: true, cron_authorized: true, channel: 'cron', user_id: 'alice', session_key: 'cron:agree' });
  const asRules = (set: EffectiveTools) => Object.fromEntries([
    ...set.offered.map((t) => [t.name, null] as const), ...set.removed.map((t) => [t.name, t.rule] as const),
  ]);

  async function views(cfg: Config) {
    const db = database().db;
    const registry = builtinTools(cfg, { db });
    const runtime = createAgentRuntime({
      config: cfg, db, tools: registry, guard: createGuard(cfg, systemGuardDeps({ dns: false })), chat: null, wrapSink: () => ({ record: async () => {} }),
    });
    const checkCall = await checkCallGate(cfg, { dns: false, allowlist: null, grant: null });
    const daemonGate = runtime.gateFor(ctx);
    // step 0 of each gate: the rule that removed the tool, or null when the call got past it
    const stepZero = async (gate: typeof daemonGate) => Object.fromEntries(await Promise.all(CATALOG.map(async (e) => {
      const d = await gate.check({ tool: e.name, args: {} }, ctx);
      return [e.name, d.step === 0 ? d.rule : null] as const;
    })));
    return {
      definition: asRules(effectiveTools(CATALOG.map((e) => catalogFacts(e, cfg)), selectionFor(cfg, ctx))),
      checkCall: await stepZero(checkCall),
      daemonGate: await stepZero(daemonGate),
      jobPreview: asRules(jobToolSet(cfg, registry, [])),
      toolsList: asRules(toolsListView(cfg, { unattended: true }).result),
      runtimeOffered: runtime.offered(ctx).map((f) => f.name).sort(),
    };
  }

  it.each(SECURITY_PROFILES)('config security.profile %s', async (profile) => {
    const cfg = defaultConfig({ ...SERVICES, security: { profile } });
    const v = await views(cfg);
    expect(Object.keys(v.definition).sort()).toEqual(ALL);
    expect(v.checkCall).toEqual(v.definition);
    expect(v.daemonGate).toEqual(v.definition);
    expect(v.jobPreview).toEqual(v.definition);
    expect(v.toolsList).toEqual(v.definition);
    expect(v.runtimeOffered).toEqual(ALL.filter((n) => v.definition[n] === null));
    // and the set is the daemon's at least: nothing the daemon profile removes is left (I4)
    for (const name of deniedBy('daemon')) expect(v.definition[name], name).not.toBeNull();
    for (const name of aboveCap(securityFor(cfg, ctx))) expect(v.definition[name], name).not.toBeNull();
  });
});
