import type { Config } from '../config/schema.ts';
import { effectiveTools, type EffectiveTools } from '../policy/effective-tools.ts';
import { stricterProfile } from '../policy/security-profiles.ts';
import { CATALOG_BY_NAME } from '../tools/catalog-table.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { unattendedVerdict } from '../approval/unattended-step.ts';
import { writesFiles } from '../guard/index.ts';
import type { RiskLevel } from '../policy/risk.ts';
import type { RuleId } from '../policy/rules.ts';
import { definitionFields, definitionInputOf } from '../jobs/service.ts';
import type { JobRow } from '../store/schema.ts';

/** The part of a payload that decides which tools its runs call. */
export interface PayloadShape {
  readonly kind?: string;
  readonly steps?: readonly { readonly tool: string }[];
}

/** A step list with a step that starts agents (delegate_task, task, …): those choose their own calls at run time. */
function startsAgents(payload: PayloadShape): boolean {
  return payload.kind === 'steps' && (payload.steps ?? []).some((s) => CATALOG_BY_NAME.get(s.tool)?.hostsAgents === true);
}

/**
 * What a job's runs may use tonight: the effective set under max(config, daemon) (I4) and the job's subset.
 * A steps job calls its steps and nothing else, so for it the set is its step tools; unless a step starts
 * agents (delegate_task, task, …), whose calls may reach the whole set.
 */
export function jobToolSet(config: Config, tools: ToolRegistry, jobTools: readonly string[], payload?: PayloadShape): EffectiveTools {
  const set = effectiveTools(tools.allFacts(), {
    profile: config.tools.profile, allow: config.tools.allow, also_allow: config.tools.also_allow, deny: config.tools.deny,
    security: stricterProfile(config.security.profile, 'daemon'), network: config.execution.network_policy, allowedTools: jobTools,
  });
  if (payload?.kind !== 'steps' || startsAgents(payload)) return set;
  const used = new Set((payload.steps ?? []).map((s) => s.tool));
  return { offered: set.offered.filter((t) => used.has(t.name)), removed: set.removed.filter((t) => used.has(t.name)) };
}

/**
 * Lines for the approval prompt of a cronjob create/update: what the human is authorising. For an
 * update that is the job as it will be (`stored` with the call's changes), not only the changes:
 * a grant covers the whole definition, settings the call leaves alone included.
 */
export function describeJobCall(config: Config, tools: ToolRegistry, args: Record<string, unknown>, stored: JobRow | null = null): string[] {
  const patch = definitionFields(args);
  const base = args.action === 'update' && stored ? definitionInputOf(stored) : null;
  const payload = (base && patch.payload?.kind === base.payload.kind ? { ...base.payload, ...patch.payload } : patch.payload ?? base?.payload ?? {}) as
    { kind?: string; steps?: { tool: string }[]; prompt?: string; model?: string };
  const def = { ...base, ...patch };
  const set = jobToolSet(config, tools, def.tools ?? [], payload);
  const lines = [`  job: ${String(def.name ?? args.id ?? '')}${stored ? ` (${stored.id})` : ''}  schedule: ${String(def.schedule ?? '(unchanged)')} ${String(def.timezone ?? '')}`.trimEnd()];
  if (base) {
    const changed = Object.keys(patch).filter((k) => JSON.stringify(patch[k as keyof typeof patch]) !== JSON.stringify(base[k as keyof typeof base]));
    lines.push(`  this call changes: ${changed.join(', ') || 'nothing'}; everything below is the job as it will be, and approving authorises all of it`);
  } else if (args.action === 'update') {
    lines.push('  the job as stored could not be read: only the changes are shown');
  }
  if (payload.kind === 'steps') lines.push(`  steps: ${(payload.steps ?? []).map((s) => s.tool).join(' -> ')}`);
  if (payload.kind === 'agent') lines.push(`  agent prompt: ${String(payload.prompt ?? '').slice(0, 200)}${payload.model ? `  (model ${payload.model})` : ''}`);
  const delivery = (def.delivery as { notify?: unknown } | null | undefined)?.notify;
  if (typeof delivery === 'string') lines.push(`  each run's outcome is posted to notify target: ${delivery}`);
  // dangerous tools are refused in every run, so listing them as authorised would mislead
  const usable = set.offered.filter((t) => t.risk !== 'dangerous').map((t) => `${t.name}(${t.risk})`).join(', ') || '(no tools)';
  const hosting = startsAgents(payload);
  // a step that starts agents is as open as an agent payload: they choose their calls at run time
  const steps = payload.kind === 'steps' && !hosting;
  lines.push(
    steps ? '  approving makes the job cron_authorized: its steps may do their WRITE and EXEC calls unattended, as written, with:'
      : '  approving makes the job cron_authorized: its runs may do WRITE and EXEC calls unattended with:',
    `    ${usable}${!steps && (def.tools ?? []).length === 0 ? '   (the job names no tools: every tool the daemon offers)' : ''}`,
  );
  if (hosting) lines.push('  a step starts agents (or child jobs) that run under this approval and choose their own calls from the tools above');
  if (steps && set.removed.length > 0) lines.push(`  steps refused in every run (not available to daemon runs): ${set.removed.map((t) => `${t.name} (${t.rule})`).join(', ')}`);
  lines.push('  dangerous tools are refused in every run, whatever is approved here.');
  return lines;
}

export interface ToolOutlook {
  readonly name: string;
  readonly risk: RiskLevel;
  /** What gate step 4 does with an unflagged call of this tool tonight. */
  readonly tonight: 'allowed' | 'allowed inside the workspace' | 'refused';
  readonly rule: RuleId;
}

/**
 * What each tool the job's runs are offered may do tonight, from the gate's own
 * step-4 table: the answer to "what may job X do tonight" per tool. A call the guard flags is refused whatever this says.
 */
export async function toolOutlook(config: Config, offered: readonly { name: string; risk: RiskLevel }[], cronAuthorized: boolean): Promise<ToolOutlook[]> {
  return Promise.all(offered.map(async (t) => {
    const v = await unattendedVerdict({
      risk: t.risk, flagged: false, cronAuthorized, policy: config.permissions.approval.unattended_policy,
      writeScope: async () => (writesFiles(t.name) ? 'workspace' : 'not_files'),
    });
    const tonight = v.outcome === 'deny' ? 'refused' : v.rule === 'unattended.allow_safe.write' ? 'allowed inside the workspace' : 'allowed';
    return { name: t.name, risk: t.risk, tonight, rule: v.rule };
  }));
}
