import type { Config } from '../config/schema.ts';
import { effectiveTools, selectionFor, type EffectiveTools } from '../policy/effective-tools.ts';
import { CATALOG_BY_NAME } from '../tools/catalog-table.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { friendliestVerdict } from '../approval/unattended-step.ts';
import { writesFiles } from '../guard/index.ts';
import type { RiskLevel } from '../policy/risk.ts';
import type { RuleId } from '../policy/rules.ts';
import { definitionFields, definitionInputOf } from '../jobs/service.ts';
import type { JobRow } from '../store/schema.ts';
import { scopeCovers } from '../store/grants.ts';
import { AUTHORISED_FIELDS } from '../jobs/definition.ts';
import { isInside } from '../guard/paths/real-path.ts';
import { stepPaths } from '../jobs/step-paths.ts';
import { resolve } from 'node:path';
import { NEEDS_A_PERSON } from '../agent/runtime.ts';

/** What a tool that asks the person at the session (clarify) is, in an unattended run: the runtime never offers it. */
export const NOT_OFFERED_UNATTENDED = 'not offered to unattended runs (needs a person)';

/** Whether a tool needs a person to answer it (runtime.ts NEEDS_A_PERSON), so no unattended run is offered it. */
export const needsAPerson = (t: { readonly capabilities?: readonly string[] }): boolean => (t.capabilities ?? []).some((c) => NEEDS_A_PERSON.has(c));

/** A note for `check call --job J --tool T` when T is one of these (null otherwise). */
export function needsAPersonNote(set: EffectiveTools, tool: string): string | null {
  return set.offered.some((t) => t.name === tool && needsAPerson(t)) ? `${tool}: ${NOT_OFFERED_UNATTENDED} (tools.needs_a_person): the gate's answer below is never asked in a run` : null;
}

/** The part of a payload that decides which tools its runs call. */
export interface PayloadShape {
  readonly kind?: string;
  readonly steps?: readonly { readonly tool: string; readonly args?: unknown }[];
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
  // a run's context: unattended, the job's tools as its allowed subset (daemon/run-context.ts)
  const set = effectiveTools(tools.allFacts(), selectionFor(config, { unattended: true, allowed_tools: jobTools }));
  if (payload?.kind !== 'steps' || startsAgents(payload)) return set;
  const used = new Set((payload.steps ?? []).map((s) => s.tool));
  return { offered: set.offered.filter((t) => used.has(t.name)), removed: set.removed.filter((t) => used.has(t.name)) };
}

/** The job a create or update call would leave: for an update, the stored job with the call's changes. */
function jobAfterCall(args: Record<string, unknown>, stored: JobRow | null) {
  const patch = definitionFields(args);
  const base = args.action === 'update' && stored ? definitionInputOf(stored) : null;
  const payload = (base && patch.payload?.kind === base.payload.kind ? { ...base.payload, ...patch.payload } : patch.payload ?? base?.payload ?? {}) as
    { kind?: string; steps?: { tool: string }[]; prompt?: string; model?: string };
  return { patch, base, payload, def: { ...base, ...patch } };
}

/** The model settings an agent turn needs and this configuration lacks; `model` is the payload's own. */
function modelSettingsMissing(config: Config, model: string | undefined): string[] {
  return [...(config.model.base_url ? [] : ['model.base_url']), ...(model || config.model.name ? [] : ['model.name'])];
}

/**
 * The model settings a job's runs need and this configuration lacks (empty when it needs none or has them):
 * without them an agent payload, or a step that starts agents, fails with "agent turns need a model".
 */
export function jobModelMissing(config: Config, payload: PayloadShape & { readonly model?: string }): string[] {
  return payload.kind === 'agent' || (payload.steps ?? []).some((s) => stepNeedsModel(s, 0)) ? modelSettingsMissing(config, payload.model) : [];
}

/** Nested workflows are followed this deep, as child jobs are. */
const MAX_NESTED_WORKFLOWS = 4;

/**
 * Whether a step's run asks the model: a sub-agent does, and so does the agent job a task creates; a workflow
 * creates a steps job, which needs one only if one of its own steps does.
 */
function stepNeedsModel(step: { readonly tool: string; readonly args?: unknown }, depth: number): boolean {
  if (CATALOG_BY_NAME.get(step.tool)?.hostsAgents !== true) return false;
  const args = (step.args ?? {}) as { action?: unknown; steps?: unknown };
  if (step.tool === 'task') return args.action === 'create';
  if (step.tool !== 'workflow') return true;
  const nested = args.action === 'create' && Array.isArray(args.steps) ? args.steps as { tool?: unknown; args?: unknown }[] : [];
  return depth < MAX_NESTED_WORKFLOWS && nested.some((s) => typeof s?.tool === 'string' && stepNeedsModel({ tool: s.tool, args: s.args }, depth + 1));
}

/** The tools a human approval authorises the job's runs to use: the set they are offered, dangerous ones aside (refused in every run). */
export function usableByRuns(set: EffectiveTools): string[] {
  return set.offered.filter((t) => t.risk !== 'dangerous').map((t) => t.name);
}

/**
 * What a grant from approving this cronjob call covers: the tools its prompt lists (I2). Null for a call
 * that changes no definition. Computed where the call waits, so the prompt and the grant agree.
 */
export function jobToolScope(config: Config, tools: ToolRegistry, args: Record<string, unknown>, stored: JobRow | null = null): string[] | null {
  if (args.action !== 'create' && args.action !== 'update') return null;
  const { def, payload } = jobAfterCall(args, stored);
  return usableByRuns(jobToolSet(config, tools, def.tools ?? [], payload));
}

/** Runs of blanks a person cannot count (or that push text out of sight) as their count: `⟨400 spaces⟩`. */
function compactWhitespace(line: string): string {
  return line.replace(/[ \t]{8,}/g, (run) => `⟨${run.length} ${run.includes('\t') ? 'blanks' : 'spaces'}⟩`);
}

/** A text as indented lines, blanks counted and runs of empty lines as one line saying how many. */
function blockLines(text: string, indent: string): string[] {
  const out: string[] = [];
  let empty = 0;
  const flush = () => {
    if (empty > 2) out.push(`${indent}⟨${empty} empty lines⟩`);
    else for (let i = 0; i < empty; i++) out.push(indent.trimEnd());
    empty = 0;
  };
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') empty++;
    else {
      flush();
      out.push(`${indent}${compactWhitespace(line)}`);
    }
  }
  flush();
  return out;
}

/**
 * Lines for the approval prompt of a cronjob create/update: what the human is authorising. For an
 * update that is the job as it will be (`stored` with the call's changes), not only the changes:
 * a grant covers the whole definition, settings the call leaves alone included. `scope`: the tools
 * the stored request says the grant will cover, when another process asked (approvals show).
 */
export function describeJobCall(config: Config, tools: ToolRegistry, args: Record<string, unknown>, stored: JobRow | null = null, scope: readonly string[] | null = null): string[] {
  const { patch, base, payload, def } = jobAfterCall(args, stored);
  const set = jobToolSet(config, tools, def.tools ?? [], payload);
  // a timezone left out is UTC: said, so "0 4 * * *" is not read as the approver's local 4 am
  const zone = def.timezone ?? (def.schedule !== undefined ? 'UTC' : '');
  const lines = [`  job: ${String(def.name ?? args.id ?? '')}${stored ? ` (${stored.id})` : ''}  schedule: ${String(def.schedule ?? '(unchanged)')} ${String(zone)}`.trimEnd()];
  if (base) {
    const changed = Object.keys(patch).filter((k) => JSON.stringify(patch[k as keyof typeof patch]) !== JSON.stringify(base[k as keyof typeof base]));
    lines.push(`  this call changes: ${changed.join(', ') || 'nothing'}; everything below is the job as it will be, and approving authorises all of it`);
    if (!changed.some((k) => (AUTHORISED_FIELDS as readonly string[]).includes(k))) {
      lines.push('  none of that is part of the definition, but approving authorises the job as shown: a grant that covers exactly the tools below is kept, otherwise one is issued for them');
    }
  } else if (args.action === 'update') {
    lines.push('  the job as stored could not be read: only the changes are shown');
  }
  // all of what the grant authorises, never cut: a part left off the screen would be approved unseen (I2)
  if (payload.kind === 'steps') {
    const list = (payload.steps ?? []) as { tool: string; args?: unknown }[];
    lines.push(`  steps (${list.length}), in full:`, ...list.flatMap((s, i) => [`    ${i + 1}. ${s.tool} ${compactWhitespace(JSON.stringify(s.args ?? {}))}`, ...stepPathLines(config, s)]));
  }
  if (payload.kind === 'agent') {
    const prompt = String(payload.prompt ?? '');
    lines.push(`  agent prompt (${prompt.length} characters), in full:`, ...blockLines(prompt, '    | '));
    // a model left to the config changes with it, without anyone approving again
    lines.push(payload.model ? `  model: ${payload.model} (named by the job)` : `  model: the configuration's model.name${config.model.name ? ` (${config.model.name} here now)` : ''}, which may change without a new approval; name one in the payload to fix it`);
  }
  const delivery = (def.delivery as { notify?: unknown } | null | undefined)?.notify;
  if (typeof delivery === 'string') lines.push(`  each run's outcome is posted to notify target: ${delivery}`);
  // dangerous tools are refused in every run, so listing them as authorised would mislead
  const riskOf = (name: string) => set.offered.find((t) => t.name === name)?.risk ?? CATALOG_BY_NAME.get(name)?.risk ?? 'unknown';
  // a tool that asks a person is never offered to a run, whatever the grant lists: named apart, not as usable
  const asks = new Set(set.offered.filter(needsAPerson).map((t) => t.name));
  const usable = (scope ?? usableByRuns(set)).filter((name) => !asks.has(name)).map((name) => `${name}(${riskOf(name)})`).join(', ') || '(no tools)';
  const hosting = startsAgents(payload);
  // a step that starts agents is as open as an agent payload: they choose their calls at run time
  const steps = payload.kind === 'steps' && !hosting;
  lines.push(
    // daemon runs are never offered exec (I4): what they may do is calls of the tools below, writes included
    steps ? '  approving makes the job cron_authorized: its steps may make their calls, writes included, unattended, as written, with:'
      : '  approving makes the job cron_authorized: its runs may call these tools, writes included, unattended with:',
    `    ${usable}${!steps && (def.tools ?? []).length === 0 ? '   (the job names no tools: every tool offered now)' : ''}`,
  );
  if (asks.size > 0) lines.push(`  ${NOT_OFFERED_UNATTENDED}: ${[...asks].join(', ')}`);
  if (hosting) lines.push('  a step starts agents (or child jobs) that run under this approval and choose their own calls from the tools above');
  // approving a job whose every run would fail is rarely what the person means: say so while they can still refuse
  const unset = modelSettingsMissing(config, payload.model);
  if ((payload.kind === 'agent' || hosting) && unset.length > 0) {
    lines.push(`  no model is configured here (${unset.join(', ')}): its agent runs fail unless the daemon's configuration has one`);
  }
  if (steps && set.removed.length > 0) lines.push(`  steps refused in every run (not available to daemon runs): ${set.removed.map((t) => `${t.name} (${t.rule})`).join(', ')}`);
  lines.push(
    '  the grant covers only the tools listed here: a tool the configuration offers later is used without it.',
    '  dangerous tools are refused in every run, whatever is approved here.',
  );
  return lines;
}

/**
 * Where a file step reads or writes, resolved against this configuration's workspace (the daemon's must be the
 * same): `../../etc/x` does not say /etc/x on its own. One outside the workspace says so, and why it is allowed.
 */
function stepPathLines(config: Config, step: { tool: string; args?: unknown }): string[] {
  const args = step.args !== null && typeof step.args === 'object' && !Array.isArray(step.args) ? step.args as Record<string, unknown> : {};
  const ws = resolve(config.tools.workspace);
  // writes go below safe_write_root when one is set (relative to the workspace, as the guard resolves it)
  const safe = config.tools.safe_write_root !== '' ? resolve(ws, config.tools.safe_write_root) : null;
  return stepPaths(step.tool, args, ws).map((p) => {
    const unsafe = p.access === 'writes' && safe !== null && !isInside(p.resolved, safe);
    const note = unsafe ? `  (refused in every run: outside tools.safe_write_root ${safe})`
      : p.inside ? ''
        : `  OUTSIDE the workspace ${ws}${config.tools.restrict_to_workspace ? ' (refused in every run: tools.restrict_to_workspace is on)' : ' (allowed: tools.restrict_to_workspace is off)'}`;
    return `       ${p.access} ${p.resolved}${note}`;
  });
}

export interface ToolOutlook {
  readonly name: string;
  readonly risk: RiskLevel;
  /** What gate step 4 does with an unflagged call of this tool tonight. */
  readonly tonight: 'allowed' | 'allowed inside the workspace' | 'refused' | typeof NOT_OFFERED_UNATTENDED;
  readonly rule: RuleId;
}

/**
 * What each tool the job's runs are offered may do tonight, from the gate's own
 * step-4 table: the answer to "what may job X do tonight" per tool. A call the guard flags is refused whatever this says.
 */
export async function toolOutlook(
  config: Config, offered: readonly { name: string; risk: RiskLevel; capabilities?: readonly string[] }[], cronAuthorized: boolean, grantScope: readonly string[] | null = null,
): Promise<ToolOutlook[]> {
  return Promise.all(offered.map(async (t): Promise<ToolOutlook> => {
    // the gate would allow it, but no run's model is offered it: nobody is there to answer (I12)
    if (needsAPerson(t)) return { name: t.name, risk: t.risk, tonight: NOT_OFFERED_UNATTENDED, rule: 'tools.needs_a_person' };
    const v = await friendliestVerdict({
      risk: t.risk, writesFiles: writesFiles(t.name), cronAuthorized, coveredByGrant: scopeCovers(grantScope, t.name), policy: config.permissions.approval.unattended_policy,
    });
    const withinWorkspace = v.rule === 'unattended.allow_safe.write' || v.rule === 'unattended.outside_grant.allow_safe';
    const tonight = v.outcome === 'deny' ? 'refused' : withinWorkspace ? 'allowed inside the workspace' : 'allowed';
    return { name: t.name, risk: t.risk, tonight, rule: v.rule };
  }));
}
