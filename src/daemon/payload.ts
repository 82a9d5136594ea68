import type { AgentRuntime, RunScope } from '../agent/runtime.ts';
import { reasonForPeople } from '../approval/decision.ts';
import { ARGS_INVALID, OVER_CALL_LIMIT, type ApprovalGate } from '../approval/gate.ts';
import type { RunGrant } from '../approval/ports.ts';
import type { Config } from '../config/schema.ts';
import type { AuditAppend } from '../store/audit-writer.ts';
import type { Executor } from '../store/db.ts';
import type { JobRow, StepsPayload } from '../store/schema.ts';
import { addDenial } from '../store/runs.ts';
import { saveTranscript, transcriptOfRun } from '../store/transcripts.ts';
import { whileUnreachable } from '../store/pg-errors.ts';
import type { TranscriptMessage } from '../store/catalog-schema.ts';
import { gatedCall } from '../session/gated-call.ts';
import type { ToolExecutionContext } from '../tools/context.ts';
import type { EffectLedger } from '../tools/effects.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { ToolResult } from '../tools/types.ts';
import { remedyFor } from '../policy/rules.ts';
import { onlyResolverDown } from '../guard/ssrf/check-url.ts';
import type { CallRecord } from '../agent/loop.ts';
import { redactText } from '../util/redact.ts';
import { pairSafeEnd } from '../tools/spill.ts';
import { untilAnswered } from './run-lease.ts';

export interface StepRecord {
  readonly index: number;
  readonly tool: string;
  readonly decision: { outcome: string; step: number; rule: string; reason: string };
  readonly result?: ToolResult;
}

export interface PayloadOutcome {
  readonly output: Record<string, unknown>;
  readonly denials: number;
  readonly stoppedByDenials: boolean;
  /** Failed in a way that may pass on another attempt (internal/timeout, model endpoint down). */
  readonly retryable: boolean;
  readonly failed: boolean;
  readonly error: string | null;
  /** A steps run stopped by this refusal (below the limit too): it ends `denied`, its run.state record naming the rule. */
  readonly stoppedBy?: StepRefusal;
}

/** The refusal that stopped a steps run: the gate's rule and step, and the job's step (1-based) it refused. */
export interface StepRefusal {
  readonly rule: string;
  readonly gate_step: number;
  readonly job_step: number;
  readonly tool: string;
}

export interface PayloadDeps {
  readonly db: Executor;
  readonly config: Config;
  readonly tools: ToolRegistry;
  readonly agent: AgentRuntime;
  readonly ledger?: EffectLedger;
  /** Where the run's decision records go (the daemon's writer, with run.started leading). */
  readonly audit?: AuditAppend;
  /** The grant the run started with; asked before a call relies on it. */
  readonly grant?: RunGrant;
  /** The attempt running: its refusals count only while the run is still this attempt. */
  readonly attempt?: number;
}

function scopeOf(deps: PayloadDeps, job: JobRow, runId: string): RunScope {
  return { job_id: job.id, run_id: runId, ...(deps.audit ? { audit: deps.audit } : {}), ...(deps.grant ? { grant: deps.grant } : {}) };
}

export function runPayload(deps: PayloadDeps, job: JobRow, runId: string, ctx: ToolExecutionContext, signal: AbortSignal): Promise<PayloadOutcome> {
  return job.payload.kind === 'agent' ? runAgentPayload(deps, job, runId, ctx, signal) : runSteps(deps, job, runId, ctx, signal);
}

/** A step list: no model; each step goes through the same gate and executor as an agent's calls. */
async function runSteps(deps: PayloadDeps, job: JobRow, runId: string, ctx: ToolExecutionContext, signal: AbortSignal): Promise<PayloadOutcome> {
  const { payload } = job;
  if (payload.kind !== 'steps') throw new Error('not a steps payload');
  // the job's step each gate.decision record belongs to (data.job_step, 1-based): steps run one at a time, so the one now running
  const at = { job_step: 0 };
  const audit = deps.audit ? withJobStep(deps.audit, at) : undefined;
  const scope = scopeOf({ ...deps, ...(audit ? { audit } : {}) }, job, runId);
  // the run's total, sub-agents' refusals included: they count through the same function
  const tally = { denials: 0 };
  // a run taken over counts on in memory: this attempt still stops at its limit
  const onDenial = async () => (tally.denials = (await addDenial(deps.db, runId, deps.attempt)) ?? tally.denials + 1);
  return deps.agent.hosting(ctx, { signal, scope, onDenial }, () => stepList(deps, payload, ctx, signal, deps.agent.gateFor(ctx, scope), { tally, onDenial }, at));
}

/** Gate decisions tagged with the job step running (sub-agents' decisions inside it too); other records as they are. */
function withJobStep(audit: AuditAppend, at: { job_step: number }): AuditAppend {
  const tagged = ((event: Parameters<AuditAppend>[0]) => audit(event.kind === 'gate.decision' && at.job_step > 0
    ? { ...event, data: { ...event.data, job_step: at.job_step } } : event)) as AuditAppend;
  return Object.assign(tagged, { ...(audit.ordered ? { ordered: true } : {}), ...(audit.withChange ? { withChange: audit.withChange } : {}) });
}

interface DenialCount {
  readonly tally: { denials: number };
  readonly onDenial: () => Promise<number>;
}

async function stepList(deps: PayloadDeps, payload: StepsPayload, ctx: ToolExecutionContext, signal: AbortSignal, gate: ApprovalGate, count: DenialCount, at: { job_step: number }): Promise<PayloadOutcome> {
  const maxDenials = deps.config.permissions.approval.max_denials_per_run;
  const steps: StepRecord[] = [];
  let failed = false;
  let retryable = false;
  let error: string | null = null;
  let stoppedBy: StepRefusal | undefined;
  const end = (stoppedByDenials: boolean): PayloadOutcome => ({ output: { steps }, denials: count.tally.denials, stoppedByDenials, retryable, failed, error, ...(stoppedBy ? { stoppedBy } : {}) });
  for (const [index, step] of payload.steps.entries()) {
    if (signal.aborted) break;
    at.job_step = index + 1;
    const { decision, result } = await gatedCall(gate, deps.tools, step, ctx, index, { signal, ...(deps.ledger ? { ledger: deps.ledger } : {}) });
    // a steps job has no model: the run's output is read by people, so the advice never to retry is not theirs
    const brief = { outcome: decision.outcome, step: decision.step, rule: decision.rule, reason: reasonForPeople(decision.reason) };
    if (decision.rule === ARGS_INVALID) {
      // refused before the gate's steps and recorded (I8); not counted as a refusal
      steps.push({ index, tool: step.tool, decision: brief, result });
      failed = true;
      error ??= `step ${index + 1} (${step.tool}): ${result.error}`;
      // as on a failure: the steps after it may depend on what it was to do
      break;
    }
    if (decision.outcome !== 'allow' && decision.rule === 'unattended.flagged' && onlyResolverDown(decision.flagged)) {
      // the name could not be looked up just now: a passing outage, retried with the run's backoff, not a refusal to count
      steps.push({ index, tool: step.tool, decision: brief });
      failed = true;
      retryable = true;
      error ??= `step ${index + 1} (${step.tool}) could not run: ${reasonForPeople(decision.flagged[0]!.reason)} (${decision.flagged[0]!.matched})`;
      break;
    }
    if (decision.outcome !== 'allow') {
      await count.onDenial();
      steps.push({ index, tool: step.tool, decision: brief });
      failed = true;
      const fix = remedyFor(decision);
      error ??= `step ${index + 1} (${step.tool}) refused at gate step ${decision.step}: ${decision.rule}${fix ? ` (to fix: ${fix})` : ''}`;
      // as at a failed step: the steps after it may depend on what it was to do, and there is no model to adapt;
      // the run ends `denied` (a policy refusal, not a tool error: the remedy is an approval, not the environment)
      stoppedBy = { rule: decision.rule, gate_step: decision.step, job_step: index + 1, tool: step.tool };
      return end(count.tally.denials >= maxDenials);
    }
    steps.push({ index, tool: step.tool, decision: brief, result });
    // a step's sub-agent may have used up the run's refusals
    if (count.tally.denials >= maxDenials) return end(true);
    if (!result.success) {
      failed = true;
      retryable ||= result.errorKind === 'internal' || result.errorKind === 'timeout';
      error ??= `step ${index + 1} (${step.tool}) failed: ${result.error ?? result.errorKind}`;
      // later steps usually depend on earlier ones; stop at the first failure
      break;
    }
  }
  return end(false);
}

/** An agent prompt: the loop offers the run's effective tools; the transcript is kept with the run. */
async function runAgentPayload(deps: PayloadDeps, job: JobRow, runId: string, ctx: ToolExecutionContext, signal: AbortSignal): Promise<PayloadOutcome> {
  if (job.payload.kind !== 'agent') throw new Error('not an agent payload');
  const { prompt, model } = job.payload;
  let denials = 0;
  const onDenial = async () => (denials = (await addDenial(deps.db, runId, deps.attempt)) ?? denials + 1);
  const out = await deps.agent.run(prompt, ctx, {
    signal, scope: scopeOf(deps, job, runId), onDenial, ...(model ? { model } : {}),
  });
  let tries = 0;
  // a database that is away does not fail a run whose work is done: tried until the run stops (its lease decides)
  const transcript = out.messages.length > 0
    ? await whileUnreachable(async () => {
      // a try whose answer was lost may have saved it: this execution's transcript is not saved twice
      const saved = tries++ > 0 ? await transcriptOfRun(deps.db, runId) : null;
      if (saved?.execution_id === ctx.execution_id) return saved;
      return saveTranscript(deps.db, {
        kind: 'run', session_key: ctx.session_key, memory_scope: ctx.memory_scope, run_id: runId, job_id: job.id,
        execution_id: ctx.execution_id, prompt, messages: out.messages as unknown as TranscriptMessage[], secrets: Object.values(ctx.credentials),
      });
    }, { signal, delaysMs: untilAnswered(deps.config) })
    : null;
  const refused = refusalSummary(out.calls, out.denials);
  // calls that did nothing without being refused (failed, bad arguments, not run): not refusals, still not done
  const undone = undoneSummary(out.calls);
  // at the limit the run's end says "stopped after N refusals" itself (settle), before the refused calls
  const said = out.status === 'denied' ? [refused ?? out.error] : [out.error, refused];
  return {
    output: { agent: { status: out.status, final: out.final, turns: out.turns, tokens: out.tokens, transcript_id: transcript?.id ?? null }, calls: out.calls },
    denials: out.denials,
    stoppedByDenials: out.status === 'denied',
    // an endpoint that is down may be up next time; a refused model name or a bad answer will not change
    retryable: out.status === 'model_error' && out.transient === true,
    failed: out.status !== 'completed',
    // a run whose model finished keeps its state, but what was refused or failed is said beside it, not only in the output
    error: [...said, undone].filter((e) => e).join('; ') || null,
  };
}

/** A refusal as the loop counts it toward max_denials_per_run: not bad arguments, not a surplus call. */
const countsAsRefusal = (c: CallRecord): boolean =>
  c.decision !== null && c.decision.outcome !== 'allow' && c.decision.rule !== ARGS_INVALID && c.decision.rule !== OVER_CALL_LIMIT;

/**
 * An agent run's refused calls in one line, for its error: `2 calls refused: notify (unattended.outside_grant),
 * exec (security.daemon.capability)`; the same call refused again is counted (×2), and refusals of its sub-agents,
 * counted in `denials` but not among its own calls, are named as theirs. Null when nothing was refused.
 */
export function refusalSummary(calls: readonly CallRecord[], denials: number): string | null {
  const own = calls.filter(countsAsRefusal);
  const total = Math.max(denials, own.length);
  if (total === 0) return null;
  const seen = new Map<string, number>();
  for (const c of own) {
    const key = `${shortTool(c.tool)} (${c.decision!.rule})`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const named = [...seen].map(([key, n]) => (n > 1 ? `${key} ×${n}` : key));
  if (total > own.length) named.push(`${total - own.length} by its sub-agents (their audit records name them)`);
  return redactText(`${total} call${total === 1 ? '' : 's'} refused: ${named.join(', ')}`);
}

/** How many distinct failures an error names; the rest are counted, and `runs show` has every call in its output. */
const UNDONE_NAMED_MAX = 5;
/** How much of one failure's reason the summary keeps. */
const UNDONE_REASON_MAX = 100;

/**
 * An agent run's calls that did nothing although nothing refused them, for its error beside the refusals:
 * `1 call failed: notify (denied: target "ops" is refused by the network guard (ssrf.ip.loopback)); 1 call had bad
 * arguments: notify (text: is required)`. The model may have put them right later; a person still learns what failed.
 * Null when every call that was not refused succeeded.
 */
export function undoneSummary(calls: readonly CallRecord[]): string | null {
  const failed = calls.filter((c) => !c.success && !countsAsRefusal(c) && c.decision?.rule !== ARGS_INVALID && c.decision?.rule !== OVER_CALL_LIMIT);
  const parts = [
    counted(failed, 'failed', (c) => `${c.errorKind ?? 'failed'}: ${reasonOf(c)}`),
    counted(calls.filter((c) => c.decision?.rule === ARGS_INVALID), 'had bad arguments', reasonOf),
    counted(calls.filter((c) => c.decision?.rule === OVER_CALL_LIMIT), 'not run', () => 'model.max_tool_calls_per_turn'),
  ].filter((p): p is string => p !== null);
  return parts.length > 0 ? redactText(parts.join('; ')) : null;
}

/** `2 calls failed: notify (denied: …) ×2`: the same tool and reason counted, at most UNDONE_NAMED_MAX named. */
function counted(calls: readonly CallRecord[], what: string, detail: (c: CallRecord) => string): string | null {
  if (calls.length === 0) return null;
  const seen = new Map<string, number>();
  for (const c of calls) {
    const key = `${shortTool(c.tool)} (${detail(c)})`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const named = [...seen].slice(0, UNDONE_NAMED_MAX).map(([key, n]) => (n > 1 ? `${key} ×${n}` : key));
  if (seen.size > UNDONE_NAMED_MAX) named.push(`${seen.size - UNDONE_NAMED_MAX} more (runs show: output.calls)`);
  return `${calls.length} call${calls.length === 1 ? '' : 's'} ${what}: ${named.join(', ')}`;
}

/** A call's error without the tool name it starts with (the summary names the tool), cut short. */
function reasonOf(c: CallRecord): string {
  let text = c.error ?? c.errorKind ?? 'failed';
  for (const prefix of [`invalid arguments for ${c.tool}: `, `${c.tool}: `]) if (text.startsWith(prefix)) text = text.slice(prefix.length);
  return text.length > UNDONE_REASON_MAX ? `${text.slice(0, pairSafeEnd(text, UNDONE_REASON_MAX - 1))}…` : text;
}

/** A tool's name is the model's text: cut short in a summary, and redacted with the rest of the error. */
const shortTool = (tool: string): string => (tool.length > 40 ? `${tool.slice(0, 40)}…` : tool);
