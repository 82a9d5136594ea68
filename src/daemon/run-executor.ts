import type { Logger } from 'pino';
import { createApprovalGate, type DecisionSink } from '../approval/gate.ts';
import type { Config } from '../config/schema.ts';
import type { Guard } from '../guard/types.ts';
import { stricterProfile } from '../policy/security-profiles.ts';
import { allowlistStore } from '../store/allowlist.ts';
import { appendAudit } from '../store/audit.ts';
import type { Executor } from '../store/db.ts';
import { auditDecisionSink } from '../store/decision-sink.ts';
import { authorization, liveGrant } from '../store/grants.ts';
import { getJob } from '../store/jobs.ts';
import { addDenial, claimRun, finishRun, renewLease, retryRun, type FinalState } from '../store/runs.ts';
import type { JobRow, RunRow } from '../store/schema.ts';
import { contextForCall, type ToolExecutionContext } from '../tools/context.ts';
import type { EffectLedger } from '../tools/effects.ts';
import { executeTool } from '../tools/executor.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { fail, type ToolResult } from '../tools/types.ts';
import { validateParams } from '../tools/validate.ts';
import type { Metrics } from './metrics.ts';
import { newRunIds, unattendedRunContext } from './run-context.ts';

export interface RunExecutorDeps {
  readonly db: Executor;
  readonly config: Config;
  readonly tools: ToolRegistry;
  readonly guard: Guard;
  readonly logger: Logger;
  /** `<host>:<pid>`; the lease owner of every run this process claims. */
  readonly workerId: string;
  readonly ledger?: EffectLedger;
  /** Aborts running work at shutdown. */
  readonly shutdown?: AbortSignal;
  readonly metrics?: Metrics;
}

export interface StepRecord {
  readonly index: number;
  readonly tool: string;
  readonly decision: { outcome: string; step: number; rule: string; reason: string };
  readonly result?: ToolResult;
}

export type RunResult =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'finished'; readonly state: FinalState; readonly run: RunRow | null }
  | { readonly kind: 'retrying'; readonly notBefore: Date; readonly attempt: number };

/**
 * Executes one run. The claim comes first: a redelivered or stalled duplicate
 * finds the run already claimed and does nothing.
 */
export async function executeRun(deps: RunExecutorDeps, runId: string): Promise<RunResult> {
  const { db, config, logger } = deps;
  const ids = newRunIds(runId);
  const claimed = await claimRun(db, { run_id: runId, owner: deps.workerId, lease_seconds: config.daemon.lease_seconds, ...ids });
  if (!claimed) {
    logger.debug({ run_id: runId }, 'run already claimed or finished; duplicate delivery ignored');
    return { kind: 'duplicate' };
  }
  const job = await getJob(db, claimed.job_id, { includeRemoved: true });
  if (!job || job.removed_at) {
    const run = await finishRun(db, { run_id: runId, owner: deps.workerId, state: 'cancelled', error: 'the job was removed before the run started' });
    return { kind: 'finished', state: 'cancelled', run };
  }
  const auth = authorization(job, await liveGrant(db, job.id));
  const ctx = unattendedRunContext(job, auth.cron_authorized, claimed.attempt, ids);
  await appendAudit(db, {
    kind: 'run.started', actor: 'daemon', job_id: job.id, run_id: runId, execution_id: ctx.execution_id, trace_id: ctx.trace_id,
    rule: auth.rule, reason: auth.reason,
    data: { attempt: claimed.attempt, trigger: claimed.trigger, nominal_at: claimed.nominal_at, cron_authorized: auth.cron_authorized, grant_id: auth.grant_id, worker: deps.workerId },
  });
  logger.info({ run_id: runId, job_id: job.id, attempt: claimed.attempt, cron_authorized: auth.cron_authorized, grant_rule: auth.rule }, 'run started');

  const controller = new AbortController();
  const onShutdown = () => controller.abort(new Error('shutdown'));
  deps.shutdown?.addEventListener('abort', onShutdown, { once: true });
  const timer = setTimeout(() => controller.abort(new Error('timeout')), job.timeout_seconds * 1000);
  const renew = setInterval(() => {
    renewLease(db, { run_id: runId, owner: deps.workerId, lease_seconds: config.daemon.lease_seconds }).then((ours) => {
      if (!ours) controller.abort(new Error('lease lost'));
    }, (err: unknown) => logger.warn({ run_id: runId, err }, 'lease renewal failed'));
  }, Math.max(1000, (config.daemon.lease_seconds * 1000) / 3));
  try {
    const outcome = await runPayload(deps, job, runId, ctx, controller.signal);
    return await settle(deps, job, claimed, outcome, controller.signal, { cron_authorized: auth.cron_authorized, grant_id: auth.grant_id });
  } finally {
    clearTimeout(timer);
    clearInterval(renew);
    deps.shutdown?.removeEventListener('abort', onShutdown);
  }
}

/** Every decision is audited (I8) and counted by step and outcome. */
function countedSink(sink: DecisionSink, metrics: Metrics | undefined): DecisionSink {
  if (!metrics) return sink;
  return {
    async record(decision, call, ctx) {
      metrics.gateDecisions.inc({ step: String(decision.step), outcome: decision.outcome });
      await sink.record(decision, call, ctx);
    },
  };
}

interface PayloadOutcome {
  readonly steps: StepRecord[];
  readonly denials: number;
  readonly stoppedByDenials: boolean;
  /** A step failed in a way that may pass on another attempt (internal/timeout). */
  readonly retryable: boolean;
  readonly failed: boolean;
  readonly error: string | null;
}

async function runPayload(deps: RunExecutorDeps, job: JobRow, runId: string, ctx: ToolExecutionContext, signal: AbortSignal): Promise<PayloadOutcome> {
  const { config, db } = deps;
  if (job.payload.kind !== 'steps') {
    return { steps: [], denials: 0, stoppedByDenials: false, retryable: false, failed: true, error: 'agent payloads need the agent loop, which this build does not include yet' };
  }
  const gate = createApprovalGate(config, {
    guard: deps.guard,
    allowlist: allowlistStore(db),
    lookupTool: (name) => deps.tools.facts(name),
    sink: countedSink(auditDecisionSink(db, { job_id: job.id, run_id: runId }), deps.metrics),
    // unattended: nobody to ask (I12)
    humanApprover: null,
    smartReviewer: null,
  }, { securityProfile: stricterProfile(config.security.profile, 'daemon') });
  const maxDenials = config.permissions.approval.max_denials_per_run;
  const steps: StepRecord[] = [];
  let denials = 0;
  let failed = false;
  let retryable = false;
  let error: string | null = null;
  for (const [index, step] of job.payload.steps.entries()) {
    if (signal.aborted) break;
    const callCtx = contextForCall(ctx, { tool: step.tool, callIndex: index, params: step.args });
    const tool = deps.tools.get(step.tool);
    const invalid = tool ? validateParams(tool.parameters, step.args) : null;
    if (invalid) {
      steps.push({ index, tool: step.tool, decision: { outcome: 'skipped', step: 0, rule: 'args.invalid', reason: invalid }, result: fail('validation', invalid) });
      failed = true;
      error ??= `step ${index + 1} (${step.tool}): ${invalid}`;
      continue;
    }
    const decision = await gate.check({ tool: step.tool, args: step.args }, callCtx);
    const brief = { outcome: decision.outcome, step: decision.step, rule: decision.rule, reason: decision.reason };
    if (decision.outcome !== 'allow' || !tool) {
      denials = await addDenial(db, runId);
      steps.push({ index, tool: step.tool, decision: brief });
      failed = true;
      error ??= `step ${index + 1} (${step.tool}) refused at step ${decision.step}: ${decision.rule}`;
      if (denials >= maxDenials) return { steps, denials, stoppedByDenials: true, retryable: false, failed, error };
      continue;
    }
    const result = await executeTool(tool, step.args, callCtx, {
      signal, ...(deps.ledger ? { ledger: deps.ledger } : {}),
    });
    steps.push({ index, tool: step.tool, decision: brief, result });
    if (!result.success) {
      failed = true;
      retryable ||= result.errorKind === 'internal' || result.errorKind === 'timeout';
      error ??= `step ${index + 1} (${step.tool}) failed: ${result.error ?? result.errorKind}`;
      // later steps usually depend on earlier ones; stop at the first failure
      break;
    }
  }
  return { steps, denials, stoppedByDenials: false, retryable, failed, error };
}

async function settle(
  deps: RunExecutorDeps, job: JobRow, run: RunRow, o: PayloadOutcome, signal: AbortSignal,
  grant: { cron_authorized: boolean; grant_id: string | null },
): Promise<RunResult> {
  const { db, logger } = deps;
  const reason = signal.aborted ? String((signal.reason as Error | undefined)?.message ?? 'aborted') : null;
  const output = { steps: o.steps };
  let state: FinalState;
  if (reason === 'shutdown' || reason === 'lease lost') state = 'interrupted';
  else if (reason === 'timeout') state = 'timed_out';
  else if (o.stoppedByDenials) state = 'denied';
  else state = o.failed ? 'failed' : 'succeeded';

  const canRetry = (state === 'failed' && o.retryable) || state === 'timed_out';
  if (canRetry && run.attempt <= job.max_retries) {
    const backoff = job.retry_backoff_seconds * 1000 * 2 ** (run.attempt - 1);
    const notBefore = new Date(Date.now() + backoff);
    await retryRun(db, { run_id: run.id, owner: deps.workerId, error: o.error ?? state, not_before: notBefore });
    await appendAudit(db, { kind: 'run.state', actor: 'daemon', job_id: job.id, run_id: run.id, outcome: 'retrying', reason: o.error ?? state, data: { attempt: run.attempt, not_before: notBefore } });
    logger.info({ run_id: run.id, job_id: job.id, attempt: run.attempt, not_before: notBefore }, 'run will be retried');
    return { kind: 'retrying', notBefore, attempt: run.attempt };
  }
  const error = state === 'denied' ? `stopped after ${o.denials} refusals (max_denials_per_run)` : state === 'interrupted' ? `interrupted: ${reason}` : state === 'timed_out' ? `timed out after ${job.timeout_seconds}s` : o.error;
  const finished = await finishRun(db, { run_id: run.id, owner: deps.workerId, state, output, error, denials: o.denials, ...grant });
  await appendAudit(db, {
    kind: 'run.state', actor: 'daemon', job_id: job.id, run_id: run.id, outcome: state,
    rule: state === 'denied' ? 'run.max_denials' : null, reason: error, data: { attempt: run.attempt, denials: o.denials, steps: o.steps.length },
  });
  logger.info({ run_id: run.id, job_id: job.id, state, denials: o.denials }, 'run finished');
  return { kind: 'finished', state, run: finished };
}
