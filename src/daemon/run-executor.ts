import type { Logger } from 'pino';
import { agentChatClient } from '../agent/model-config.ts';
import { createAgentRuntime, type AgentRuntime } from '../agent/runtime.ts';
import type { DecisionSink } from '../approval/gate.ts';
import type { Config } from '../config/schema.ts';
import type { Guard } from '../guard/types.ts';
import { changeWithRecord, directAppend, withLeadingRecord, type AuditAppend } from '../store/audit-writer.ts';
import type { Executor } from '../store/db.ts';
import { claimRunWithJob, type ClaimedRun } from '../store/run-claim.ts';
import { finishRunStatement, getRun, renewLease, retryRun, type FinalState } from '../store/runs.ts';
import { keepLease, LeaseNotRenewed, untilAnswered } from './run-lease.ts';
import { resendUnsent, ridden, riddenLedger } from './run-outage.ts';
import { CommittedAnswerLost, describeFailure, whileUnreachable, withoutSql, type RetryOptions } from '../store/pg-errors.ts';
import { listAudit } from '../store/audit.ts';
import { redactText } from '../util/redact.ts';
import { abortReason } from '../util/abort-reason.ts';
import { FINAL_RUN_STATES, type JobRow, type RunRow } from '../store/schema.ts';
import type { EffectLedger } from '../tools/effects.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { NetDeps } from '../tools/net-deps.ts';
import { deliverOutcome } from './delivery.ts';
import type { Metrics } from './metrics.ts';
import { runPayload, type PayloadOutcome, type StepRecord } from './payload.ts';
import type { CallRecord } from '../agent/loop.ts';
import { retryBackoffMs } from './retry-backoff.ts';
import { runAuthorization, runGrant } from '../jobs/run-authorization.ts';
import type { Authorization } from '../store/grants.ts';
import { definitionHash } from '../store/definition-hash.ts';
import { getJob, jobLineage } from '../store/jobs.ts';
import { newRunIds, unattendedRunContext, type RunIds } from './run-context.ts';
import { authorizeRun, clearIfChangedOutside } from './run-authorize.ts';
import { PAUSE_LOOKUP_DEPTH, pausedAncestor } from '../jobs/child-jobs.ts';

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
  /** Built from the other deps when absent. */
  readonly agent?: AgentRuntime;
  /** Audit appends; the daemon shares one group-commit writer across its runs. */
  readonly audit?: AuditAppend;
  /** The network seams for deliveries (tests: a fake internet). */
  readonly net?: NetDeps;
}

export type RunResult =
  | { readonly kind: 'duplicate' }
  /** A run this deployment's database does not hold (a restored database, a deleted run, another deployment's); dropped. */
  | { readonly kind: 'unknown' }
  /** A buffer_one job's run held back while another of its runs is running. */
  | { readonly kind: 'busy'; readonly behind?: number }
  /** Delivered before its retry backoff ended. */
  | { readonly kind: 'not_yet_due'; readonly waitMs: number }
  /** The run was ended elsewhere (cancelled, or retried by the reconciler) while this worker ran it. */
  | { readonly kind: 'ended_elsewhere'; readonly state: string | null }
  | { readonly kind: 'finished'; readonly state: FinalState; readonly run: RunRow | null }
  /** notBefore is on the database clock; delayMs is the backoff, which does not depend on this host's clock. */
  | { readonly kind: 'retrying'; readonly notBefore: Date; readonly delayMs: number; readonly attempt: number };

/** Where a run's records go: the daemon's shared writer, or straight to the database. */
const appender = (deps: RunExecutorDeps): AuditAppend => deps.audit ?? directAppend(deps.db);

/** A run that could not go on: a retryable failure naming the cause (the database's own, never drizzle's query text). */
const failure = (err: unknown, denials: number): PayloadOutcome => ({
  output: {}, denials, stoppedByDenials: false, retryable: true, failed: true, error: redactText(describeFailure(err)),
});

/**
 * Executes one run. The claim comes first: a redelivered or stalled duplicate
 * finds the run already claimed and does nothing.
 */
export async function executeRun(deps: RunExecutorDeps, runId: string): Promise<RunResult> {
  const { db, config, logger } = deps;
  const ids = newRunIds(runId);
  const claim = await claimRunWithJob(db, { run_id: runId, owner: deps.workerId, lease_seconds: config.daemon.lease_seconds, ...ids });
  if (claim === 'busy') return { kind: 'busy' };
  if (claim === 'unknown') {
    // the queue's name carries the database and schema, so a shared queue is the least likely cause
    logger.warn({ run_id: runId }, 'the queue delivered a run this database does not hold, and dropped it (nothing ran). Likely causes, most likely first: '
      + 'the database was restored from a backup or rewound (point-in-time recovery, a schema dropped and recreated) after the run was queued; '
      + 'the run was deleted by retention (runs prune, daemon.run_retention_days) while the queue still held a delivery of it; another deployment with the same database and schema '
      + 'names uses this Redis and queue.prefix (a copied config). After a restore nothing needs doing; '
      + 'otherwise check which daemons share queue.redis_url and queue.prefix, and give each deployment its own queue.prefix');
    return { kind: 'unknown' };
  }
  if (claim === 'duplicate') {
    logger.debug({ run_id: runId }, 'run already claimed or finished; duplicate delivery ignored');
    return { kind: 'duplicate' };
  }
  if ('notYetDue' in claim) return { kind: 'not_yet_due', waitMs: claim.notYetDue };
  if ('behind' in claim) return { kind: 'busy', behind: claim.behind };
  const { run: claimed, job } = claim;
  const claimedAt = performance.now();
  try {
    // a manual run of a paused job is someone asking for it now; a fired or retried one is cancelled, the pause covers it,
    // and so does it a child job's run while a job above it is paused
    // a child job's lineage, read once: for a pause above it here, for the grant it inherits below
    const ancestors = job.origin !== 'cronjob' && !job.removed_at && job.parent_job_id
      ? await ridden(deps, runId, 'reading the job\'s lineage', () => jobLineage(db, job.parent_job_id!, PAUSE_LOOKUP_DEPTH)) : [];
    const pausedAbove = pausedAncestor(ancestors);
    const stale = job.removed_at ? 'the job was removed before the run started'
      : job.paused && claimed.trigger !== 'manual' ? 'the job was paused before the run started'
        : pausedAbove ? `job ${pausedAbove.id} (${pausedAbove.name}), whose run made this child job, was paused before the run started` : null;
    if (stale) {
      const run = await changeWithRecord(db, appender(deps), finishRunStatement({ run_id: runId, owner: deps.workerId, attempt: claimed.attempt, state: 'cancelled', error: stale }), {
        kind: 'run.state', actor: 'daemon', job_id: job.id, run_id: runId, outcome: 'cancelled', reason: stale, data: { attempt: claimed.attempt },
      });
      return { kind: 'finished', state: 'cancelled', run };
    }
    return await runClaimed(deps, runId, claim, ids, ancestors, claimedAt);
  } catch (err) {
    // only when the database stayed away for a whole lease (or a bug): the run is left to its lease and the reconciler
    logger.error({ run_id: runId, ...jobFields(job), err }, 'run could not be executed or recorded');
    throw err;
  }
}

/** What a claimed run does: authorise, run the payload under its deadline and lease, settle. */
async function runClaimed(deps: RunExecutorDeps, runId: string, claim: ClaimedRun, ids: RunIds, ancestors: readonly JobRow[], claimedAt: number): Promise<RunResult> {
  const { db, logger } = deps;
  const { run: claimed, job } = claim;
  const controller = new AbortController();
  let auth: Authorization;
  try {
    auth = await ridden(deps, runId, 'reading the run\'s authorisation', () => authorizeRun(db, job, runId, { liveGrant: claim.liveGrant, lastEnding: claim.lastEnding, ancestors }));
  } catch (err) {
    // nothing ran yet: the run fails with the cause now (retried if the job allows), not when its lease runs out
    logger.error({ run_id: runId, ...jobFields(job), err: describeFailure(err) }, 'run could not be authorised');
    return settle(deps, job, claimed, failure(err, 0), controller.signal, { cron_authorized: false, grant_id: null }, async () => false);
  }
  const ctx = unattendedRunContext(job, auth.cron_authorized, claimed.attempt, ids);
  // run.started commits with the run's first decision (or its end), not on its own
  const { audit, lead: started } = withLeadingRecord(resendUnsent(appender(deps), controller.signal, deps.config), {
    kind: 'run.started', actor: 'daemon', job_id: job.id, run_id: runId, execution_id: ctx.execution_id, trace_id: ctx.trace_id,
    rule: auth.rule, reason: auth.reason,
    data: { attempt: claimed.attempt, trigger: claimed.trigger, nominal_at: claimed.nominal_at, cron_authorized: auth.cron_authorized, grant_id: auth.grant_id,
      ...(auth.cron_authorized ? { grant_tool_scope: auth.tool_scope } : {}), ...(auth.ended_grant ? { ended_grant: auth.ended_grant } : {}), worker: deps.workerId },
  });
  const onShutdown = () => controller.abort(new Error('shutdown'));
  deps.shutdown?.addEventListener('abort', onShutdown, { once: true });
  const timer = setTimeout(() => controller.abort(new Error('timeout')), job.timeout_seconds * 1000);
  const renew = keepLease(deps, claimed, controller);
  const grantInForce = grantStillHeld(deps, runId, job, auth, controller.signal);
  try {
    let outcome: PayloadOutcome;
    try {
      // an agent run sends its prompt to the model before any decision: record the start (and so the claim) first
      if (!audit.ordered || job.payload.kind === 'agent') await started();
      logger.info({ run_id: runId, ...jobFields(job), ...runFields(claimed), attempt: claimed.attempt, cron_authorized: auth.cron_authorized, grant_rule: auth.rule }, 'run started');
      const riding = deps.ledger ? { ...deps, ledger: riddenLedger(deps, runId, deps.ledger, controller.signal) } : deps;
      const agent = deps.agent ?? daemonAgentRuntime(riding);
      // the reads above may have waited out an outage longer than the lease: no step runs on a run taken over meanwhile
      // (asked only after such a wait: it is one more commit on every run's path)
      const waited = performance.now() - claimedAt > (deps.config.daemon.lease_seconds * 1000) / 3;
      const held = !waited || await renewLease(db, { run_id: runId, owner: deps.workerId, attempt: claimed.attempt, lease_seconds: deps.config.daemon.lease_seconds });
      if (!held) controller.abort(new Error('lease lost'));
      outcome = held ? await runPayload({ ...riding, agent, audit, grant: runGrant(auth, grantInForce), attempt: claimed.attempt }, job, runId, ctx, controller.signal)
        : { output: {}, denials: 0, stoppedByDenials: false, retryable: false, failed: true, error: 'lease lost before the run began' };
    } catch (err) {
      // a bug or a lost connection inside the payload: the run fails with the cause, now, not at lease expiry
      logger.error({ run_id: runId, ...jobFields(job), err: describeFailure(err) }, 'run payload threw');
      const now = await whileUnreachable(() => getRun(db, runId), { delaysMs: untilAnswered(deps.config) });
      outcome = failure(err, now?.denials ?? 0);
    }
    const result = await settle({ ...deps, audit }, job, claimed, outcome, controller.signal, { cron_authorized: auth.cron_authorized, grant_id: auth.grant_id }, grantInForce);
    // the run is settled: a start record still missing is worth a warning, not the run's outcome
    await started().catch((err: unknown) => logger.warn({ run_id: runId, err: describeFailure(err) }, 'the run\'s start record could not be written'));
    return result;
  } finally {
    void started().catch(() => {}); // a payload that threw before any record still leaves run.started
    clearTimeout(timer);
    clearInterval(renew);
    deps.shutdown?.removeEventListener('abort', onShutdown);
  }
}

/** Every decision is audited (I8) and counted by step and outcome. */
function countedSink(metrics: Metrics | undefined): ((sink: DecisionSink) => DecisionSink) | undefined {
  if (!metrics) return undefined;
  return (sink) => ({
    async record(decision, call, ctx) {
      metrics.gateDecisions.inc({ step: String(decision.step), outcome: decision.outcome });
      await sink.record(decision, call, ctx);
    },
  });
}

/** The daemon's agent runtime: unattended contexts get max(config, daemon) and nobody to ask (I4, I12). */
export function daemonAgentRuntime(deps: Omit<RunExecutorDeps, 'agent'>): AgentRuntime {
  const wrapSink = countedSink(deps.metrics);
  return createAgentRuntime({
    config: deps.config, tools: deps.tools, guard: deps.guard, db: deps.db, chat: agentChatClient(deps.config), ...(deps.audit ? { audit: deps.audit } : {}),
    ...(deps.ledger ? { ledger: deps.ledger } : {}), ...(wrapSink ? { wrapSink } : {}),
  });
}

async function settle(
  deps: RunExecutorDeps, job: JobRow, run: RunRow, payload: PayloadOutcome, signal: AbortSignal,
  grant: { cron_authorized: boolean; grant_id: string | null }, grantInForce: () => Promise<boolean>,
): Promise<RunResult> {
  const { db, logger } = deps;
  const cause: unknown = signal.aborted ? signal.reason : undefined;
  // renewals that failed for most of the lease: the database was away, a failure worth another attempt
  const o: PayloadOutcome = cause instanceof LeaseNotRenewed ? { ...payload, failed: true, retryable: true, error: redactText(cause.describe()) } : payload;
  const reason = cause instanceof LeaseNotRenewed || !signal.aborted ? null : abortReason(signal);
  const output = o.output;
  let state: FinalState;
  if (reason === 'shutdown' || reason === 'lease lost') state = 'interrupted';
  else if (reason === 'timeout') state = 'timed_out';
  // a steps run stops at its first refusal: denied, as at the limit, so `failed` keeps to tool errors
  else if (o.stoppedByDenials || o.stoppedBy) state = 'denied';
  else state = o.failed ? 'failed' : 'succeeded';
  const writing = { delaysMs: untilAnswered(deps.config), onRetry: (err: unknown, attempt: number) => logger.warn({ run_id: run.id, err: describeFailure(err), attempt }, 'recording the run\'s outcome failed: the database cannot be reached; trying again') };

  if (reason === 'lease lost' || cause instanceof LeaseNotRenewed) {
    const now = await whileUnreachable(() => getRun(db, run.id), writing);
    if (!heldByAttempt(deps, run, now)) return endedElsewhere(deps, job, run, now, state);
  }
  // an interrupted run is retried as one whose worker was killed would be (the reconciler's rule): a restart loses no run
  const canRetry = (state === 'failed' && o.retryable) || state === 'timed_out' || state === 'interrupted';
  if (canRetry && run.attempt <= job.max_retries) return retry(deps, job, run, o, state, reason, writing);
  const error = withoutSql(state === 'denied' ? deniedText(o) : state === 'interrupted' ? `interrupted: ${reason}` : state === 'timed_out' ? `timed out after ${job.timeout_seconds}s` : o.error ?? '') || null;
  // the final state and its record commit together; a database that is away gets up to a lease
  // before the run is left to it, so an outage does not turn a finished run into an interrupted one
  let writes = 0;
  const finished = await whileUnreachable(async () => {
    writes++;
    // an earlier try whose answer was lost may have committed: a run already ended is not written again,
    // since the record goes in whether or not the change applied and would name the outcome twice
    if (writes > 1 && isFinal((await getRun(db, run.id))?.state)) return null;
    return changeWithRecord(db, appender(deps),
      finishRunStatement({ run_id: run.id, owner: deps.workerId, attempt: run.attempt, state, output, error, denials: o.denials, ...grant }), {
        kind: 'run.state', actor: 'daemon', job_id: job.id, run_id: run.id, outcome: state,
        rule: state === 'denied' ? (o.stoppedByDenials ? 'run.max_denials' : 'run.step_refused') : null, reason: error,
        data: { attempt: run.attempt, denials: o.denials, worker: deps.workerId, ...(state === 'denied' ? refusalData(o) : {}) },
      });
  }, writing)
    // it went in, only its answer did not come back: the run as stored now is this outcome
    .catch((err: unknown) => { if (err instanceof CommittedAnswerLost) return whileUnreachable(() => getRun(db, run.id), writing); throw err; });
  if (!finished) {
    const now = await whileUnreachable(() => getRun(db, run.id), writing);
    // an earlier try may have committed with its answer lost: then the outcome is ours, recorded by this daemon
    // (not the reconciler's, which may have ended the run meanwhile with the same state)
    if (writes > 1 && now?.state === state && await recordedByUs(deps, run, state)) return afterFinish(deps, job, now, o, state, grant, grantInForce);
    // cancelled between the last renewal and this finish, or taken over and claimed again as a later attempt:
    // the record above names an outcome that did not apply
    const moved = now && now.attempt !== run.attempt ? `had moved on to attempt ${now.attempt} (${now.state})` : `had already ended as ${now?.state ?? 'unknown'}`;
    await appender(deps)({
      kind: 'run.outcome_discarded', actor: 'daemon', job_id: job.id, run_id: run.id, outcome: now?.state ?? null,
      reason: `the run ${moved}; this attempt's outcome ${state} was not applied`, data: { attempt: run.attempt, worker: deps.workerId },
    });
    return { kind: 'ended_elsewhere', state: now?.state ?? null };
  }
  return afterFinish(deps, job, finished, o, state, grant, grantInForce);
}

/** A run stopped at max_denials_per_run, and what was refused: the step and rule (a steps run), or the calls (an agent's). */
function deniedText(o: PayloadOutcome): string {
  // a steps run stopped by its one refusal below the limit: its error names the step, the rule and the remedy
  if (!o.stoppedByDenials) return o.error ?? 'refused';
  const stopped = `stopped after ${o.denials} refusals (max_denials_per_run)`;
  return o.error && !o.error.startsWith(stopped) ? `${stopped}: ${o.error}` : stopped;
}

/** Whether the run's last state record is this worker's, naming `outcome` for this attempt. */
async function recordedByUs(deps: RunExecutorDeps, run: RunRow, outcome: string): Promise<boolean> {
  const [last] = await listAudit(deps.db, { run_id: run.id, kind: 'run.state', limit: 1 });
  const data = last?.data as { attempt?: number; worker?: string } | undefined;
  return last?.actor === 'daemon' && last.outcome === outcome && data?.attempt === run.attempt && data.worker === deps.workerId;
}

/** Whether the run as read is still running as this worker's attempt (the worker may have claimed it again as the next one). */
const heldByAttempt = (deps: RunExecutorDeps, run: RunRow, now: RunRow | null): boolean =>
  now?.state === 'running' && now.lease_owner === deps.workerId && now.attempt === run.attempt;

/** Thrown in a retry's transaction when the run is not this attempt's to move: the change and its record roll back. */
const NOT_HELD = Symbol('the run is not held by this worker');

/** Another attempt after the job's backoff; the change and its record commit together, however long the database is away (up to a lease). */
async function retry(
  deps: RunExecutorDeps, job: JobRow, run: RunRow, o: PayloadOutcome, state: FinalState, interrupted: string | null, writing: RetryOptions,
): Promise<RunResult> {
  const { db, logger } = deps;
  const backoff = retryBackoffMs(job, run.attempt);
  const error = withoutSql(state === 'interrupted' ? `interrupted: ${interrupted}` : o.error ?? state);
  // why, for the record: an interruption is retried as a crash would be, not lost
  const reason = state === 'interrupted' ? `${error}; retried after its backoff, as a run whose worker died would be` : error;
  let writes = 0;
  const retried = await whileUnreachable(async () => {
    writes++;
    if (writes > 1 && !heldByAttempt(deps, run, await getRun(db, run.id))) return null;
    // the record only with the change: a run no longer ours (cancelled, taken over) gets no "retrying" record
    return changeWithRecord(db, appender(deps), async (tx) => {
      const moved = await retryRun(tx, { run_id: run.id, owner: deps.workerId, attempt: run.attempt, error, backoff_ms: backoff });
      if (!moved) throw NOT_HELD;
      return moved;
    }, {
      kind: 'run.state', actor: 'daemon', job_id: job.id, run_id: run.id, outcome: 'retrying',
      rule: state === 'interrupted' ? 'run.retry_after_interruption' : null, reason,
      data: { attempt: run.attempt, backoff_ms: backoff, worker: deps.workerId, ...(state === 'interrupted' ? { interrupted } : {}) },
    }).catch((err: unknown) => { if (err === NOT_HELD) return null; throw err; });
  }, writing).catch((err: unknown) => { if (err instanceof CommittedAnswerLost) return null; throw err; });
  const now = retried ?? await whileUnreachable(() => getRun(db, run.id), writing);
  // a try whose answer was lost may have committed it: ours when our record says so
  const ours = retried ?? (now?.state === 'retrying' && now.attempt === run.attempt && await recordedByUs(deps, run, 'retrying') ? now : null);
  if (!ours) return endedElsewhere(deps, job, run, now, state);
  const notBefore = ours.not_before!;
  // an attempt that failed is worth a warning with its cause, though the run goes on
  logger.warn({ run_id: run.id, ...jobFields(job), attempt: run.attempt, not_before: notBefore, state, error: redactText(error), ...refusal(o) }, 'run will be retried');
  return { kind: 'retrying', notBefore, delayMs: backoff, attempt: run.attempt };
}

/** Final states that mean something went wrong; a cancel is someone's choice, logged at info. */
const WARN_STATES: ReadonlySet<FinalState> = new Set(['failed', 'denied', 'timed_out', 'interrupted']);

/** A job as its log lines name it: the id, and the name an operator knows it by. */
const jobFields = (job: Pick<JobRow, 'id' | 'name'>) => ({ job_id: job.id, job_name: job.name });

/** The first refusal in a run's own steps or calls, the one its error names: the gate rule and step that refused it, and the tool. */
function refusal(o: PayloadOutcome): { rule?: string; gate_step?: number; refused_tool?: string; job_step?: number } {
  if (o.stoppedBy) return { rule: o.stoppedBy.rule, gate_step: o.stoppedBy.gate_step, refused_tool: o.stoppedBy.tool, job_step: o.stoppedBy.job_step };
  if (o.denials === 0) return {};
  const out = o.output as { steps?: readonly StepRecord[]; calls?: readonly CallRecord[] };
  const refused = [...(out.steps ?? []), ...(out.calls ?? [])]
    .find((c) => c.decision && c.decision.outcome !== 'allow' && c.decision.outcome !== 'skipped');
  // a refusal inside a sub-agent is not in the run's own output; its audit records name it
  return refused?.decision ? { rule: refused.decision.rule, gate_step: refused.decision.step, refused_tool: refused.tool } : {};
}

/** What a denied run's run.state record says of the refusal that stopped it (data.rule: the gate's rule, not the record's). */
function refusalData(o: PayloadOutcome): Record<string, unknown> {
  const r = refusal(o);
  return r.rule ? { rule: r.rule, gate_step: r.gate_step, refused_tool: r.refused_tool, ...(r.job_step ? { job_step: r.job_step } : {}) } : {};
}

/** The run's trigger and instant on its log lines: what log pipelines group by. */
const runFields = (run: Pick<RunRow, 'trigger' | 'nominal_at'>) => ({ trigger: run.trigger, nominal_at: run.nominal_at.toISOString() });

const isFinal = (state: string | undefined) => (FINAL_RUN_STATES as readonly (string | undefined)[]).includes(state);

/** A recorded outcome: logged, and delivered where the job's grant still holds (a grant revoked mid-run delivers nothing). */
async function afterFinish(
  deps: RunExecutorDeps, job: JobRow, finished: RunRow, o: PayloadOutcome, state: FinalState,
  grant: { cron_authorized: boolean }, grantInForce: () => Promise<boolean>,
): Promise<RunResult> {
  const { logger } = deps;
  const took = finished.started_at && finished.finished_at ? { duration_ms: finished.finished_at.getTime() - finished.started_at.getTime() } : {};
  const fields = { run_id: finished.id, ...jobFields(job), ...runFields(finished), ...took, state, denials: o.denials };
  // what an operator reads in the journal: a run that went wrong says why, at warn
  if (state === 'succeeded') logger.info(fields, 'run finished');
  else {
    const error = redactText(finished.error ?? o.error ?? state);
    logger[WARN_STATES.has(state) ? 'warn' : 'info']({ ...fields, error, ...refusal(o) }, 'run finished');
  }
  const authorised = grant.cron_authorized && await grantInForce().catch(() => false);
  const delivered = await deliverOutcome({ config: deps.config, audit: appender(deps), ...(deps.net ? { net: deps.net } : {}) }, job, finished, o, authorised, deps.shutdown);
  if (delivered?.rule === 'delivery.failed') {
    // the target's name and why; its URL and headers stay in the config (I11)
    logger.warn({ run_id: finished.id, ...jobFields(job), target: delivered.target, reason: delivered.reason }, 'run outcome could not be delivered');
  }
  return { kind: 'finished', state, run: finished };
}

/** This worker's attempt stopped, but the run's state was already decided elsewhere: record that, change nothing. */
async function endedElsewhere(deps: RunExecutorDeps, job: JobRow, run: RunRow, now: RunRow | null, attempted: FinalState): Promise<RunResult> {
  const state = now?.state ?? null;
  deps.logger.warn({ run_id: run.id, ...jobFields(job), state, attempted }, 'run was ended elsewhere while this worker ran it');
  await appender(deps)({
    kind: 'run.attempt_abandoned', actor: 'daemon', job_id: job.id, run_id: run.id, outcome: state,
    reason: `this worker stopped its attempt: the run is ${state ?? 'gone'}${now?.error ? ` (${now.error})` : ''}`, data: { attempt: run.attempt, worker: deps.workerId },
  });
  return { kind: 'ended_elsewhere', state };
}

/**
 * Asked before each call that relies on cron_authorized: the job's authorisation read afresh must still name
 * the grant the run started with, so `grants revoke` (or a definition change) stops a run already under way.
 * Read again while the database is away (until the run stops): the call waits, it is never allowed unchecked.
 */
function grantStillHeld(deps: RunExecutorDeps, runId: string, job: JobRow, started: Authorization, signal: AbortSignal): () => Promise<boolean> {
  const { db } = deps;
  return () => ridden(deps, runId, 'checking the run\'s grant', async () => {
    const current = await getJob(db, job.id, { includeRemoved: true });
    if (!current) return false;
    const now = await runAuthorization(db, current);
    // an edit outside echo-agent seen mid-run ends the grant for good, as the next claim would
    await clearIfChangedOutside(db, current, now, runId);
    return definitionHash(current) === definitionHash(job) && now.cron_authorized && now.grant_id === started.grant_id;
  }, signal);
}
