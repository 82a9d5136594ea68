import { appendAudit } from '../store/audit.ts';
import { sql } from 'drizzle-orm';
import { databaseNow, type Executor } from '../store/db.ts';
import { createJob, getJob, jobLineage, listJobs, removeJob } from '../store/jobs.ts';
import { insertRun, listRuns } from '../store/runs.ts';
import type { JobOrigin, JobRow, RunRow } from '../store/schema.ts';
import { NO_TOOLS, runTrace, type ToolExecutionContext } from '../tools/context.ts';
import { payloadSchema, type JobPayload } from './definition.ts';
import { instantsDroppedByRemoval } from './next-fire.ts';
import { MAX_ANCESTRY, runAuthorization } from './run-authorization.ts';
import { JobInputError, actorOf, callOf, changerOf, type JobServiceDeps } from './service.ts';

export type ChildOrigin = Exclude<JobOrigin, 'cronjob'>;

/** The job whose run a context belongs to: daemon runs carry session `cron:<job id>`. */
export function jobOfContext(ctx: ToolExecutionContext): string | null {
  const m = /^cron:(job_[a-z0-9]+)$/.exec(ctx.session_key);
  return ctx.unattended && m ? m[1]! : null;
}

/** A child can use at most what its creator could (I5); a narrowing that leaves nothing says so. */
export function childTools(ctx: ToolExecutionContext, requested: readonly string[]): string[] {
  if (ctx.allowed_tools.length === 0) return [...requested];
  if (requested.length === 0) return [...ctx.allowed_tools];
  const kept = requested.filter((t) => ctx.allowed_tools.includes(t));
  return kept.length > 0 ? kept : [NO_TOOLS];
}

/** Steps every run of the child would refuse (context.allowed_tools): the caller hears it now, when it can still change them. */
function stepsOutside(payload: JobPayload, tools: readonly string[]): string[] {
  if (payload.kind !== 'steps' || tools.length === 0) return [];
  return payload.steps.flatMap((s, i) => (tools.includes(s.tool) ? []
    : [`payload.steps[${i}] (${s.tool}): not among the tools this child job may use [${tools.join(', ')}] (at most what its creator may use), so every run would refuse this step`]));
}

export interface ChildJobInput {
  readonly origin: ChildOrigin;
  readonly name: string;
  readonly payload: JobPayload;
  readonly tools?: readonly string[];
}

/**
 * task, workflow and spawn_task: a one-off job that records what was asked and
 * by which execution, plus its run, queued now. It has no grant of its own; its
 * runs inherit the parent job's (see daemon/run-authorization.ts).
 */
export async function createChildJob(deps: JobServiceDeps, input: ChildJobInput, ctx: ToolExecutionContext): Promise<{ job: JobRow; run: RunRow }> {
  const payload = payloadSchema.safeParse(input.payload);
  if (!payload.success) throw new JobInputError(payload.error.issues.map((i) => `${['payload', ...i.path].join('.')}: ${i.message}`).join('; '));
  const tools = childTools(ctx, input.tools ?? []);
  const outside = stepsOutside(payload.data, tools);
  if (outside.length) throw new JobInputError(outside.join('; '));
  const owner = ctx.user_id || 'unknown';
  const parentJobId = jobOfContext(ctx);
  const limits = deps.childLimits ?? DEFAULT_CHILD_LIMITS;
  const { job, run } = await deps.db.transaction(async (tx) => {
    // the creating job and the jobs above it, read once for the nesting limit and the grant passed on
    const lineage = parentJobId ? await jobLineage(tx, parentJobId, Math.max(limits.max_depth, MAX_ANCESTRY + 1)) : [];
    await checkChildLimits(tx, limits, lineage, runTrace(ctx));
    // the nominal instant is on the scheduler's clock, the database's
    const now = deps.now?.() ?? await databaseNow(tx);
    const [creator = null, ...aboveCreator] = lineage;
    const held = creator && ctx.cron_authorized ? await runAuthorization(tx, creator, { ancestors: aboveCreator }) : null;
    // only the grant the creating run started with passes on: one issued since (the run's own calls are
    // re-checked before they run, but not in the moment between that check and this) covers a definition, not this run
    const startedWith = held?.cron_authorized ? await grantRunStartedWith(tx, parentJobId!, ctx) : undefined;
    const inherits = held?.cron_authorized === true && (startedWith === undefined || startedWith === held.grant_id);
    const job = await createJob(tx, {
      // owned by whom the run runs for; made by the daemon when the run is unattended
      name: input.name, owner, created_by: actorOf(ctx), schedule: `at ${now.toISOString()}`, timezone: 'UTC',
      payload: creator ? withCreatorModel(payload.data, creator.payload) : payload.data, tools, next_fire_at: null, paused: false, pause_note: null,
      ...(creator ? { timeout_seconds: creator.timeout_seconds, max_retries: creator.max_retries } : {}),
      origin: input.origin, parent_job_id: parentJobId, parent_execution_id: ctx.execution_id, parent_trace_id: runTrace(ctx),
      parent_grant_id: inherits ? held!.grant_id : null,
    }, { call: callOf(ctx) });
    const run = await insertRun(tx, { job_id: job.id, nominal_at: now, trigger: 'manual' });
    await appendAudit(tx, {
      kind: 'run.queued', actor: actorOf(ctx), job_id: job.id, run_id: run!.id, execution_id: ctx.execution_id, trace_id: ctx.trace_id,
      // the tool that made the child (the jobs row's origin); older records call it data.origin, a key that elsewhere held an account
      data: { trigger: 'manual', job_origin: input.origin, parent_job_id: job.parent_job_id, parent_grant_id: job.parent_grant_id },
    });
    return { job, run: run! };
  });
  await deps.enqueue?.(run.id);
  return { job, run };
}

/**
 * The grant named by the `run.started` record of the run this context belongs to (the run itself or a
 * sub-agent one level below it); undefined when there is no such record to go by.
 */
async function grantRunStartedWith(tx: Executor, jobId: string, ctx: ToolExecutionContext): Promise<string | null | undefined> {
  const executions = [ctx.execution_id, ...(ctx.parent_execution_id ? [ctx.parent_execution_id] : [])];
  const { rows } = await tx.execute<{ grant_id: string | null }>(sql`select data->>'grant_id' as grant_id from audit_events
    where job_id = ${jobId} and kind = 'run.started' and execution_id in (${sql.join(executions.map((e) => sql`${e}`), sql`, `)})
    order by seq desc limit 1`);
  return rows.length === 0 ? undefined : rows[0]!.grant_id;
}

const DEFAULT_CHILD_LIMITS = { max_depth: 3, max_per_execution: 20 } as const;

/** An agent child without a model of its own runs on its creator's, as it runs within its creator's timeout and retries. */
function withCreatorModel(payload: JobPayload, creator: JobPayload): JobPayload {
  return payload.kind === 'agent' && payload.model === undefined && creator.kind === 'agent' && creator.model !== undefined ? { ...payload, model: creator.model } : payload;
}

/**
 * Refuses a child that would nest deeper than max_depth below a top-level job, or that would be one
 * too many for the creating run (its sub-agents and retries included): a run's agent must not be able to fan out without end.
 */
async function checkChildLimits(tx: Executor, limits: NonNullable<JobServiceDeps['childLimits']>, lineage: readonly JobRow[], trace: string): Promise<void> {
  // serialises one run's creations, so two calls at once (two sub-agents) cannot both take the last place
  await tx.execute(sql`select pg_advisory_xact_lock(${CHILD_LOCK_CLASS}, hashtext(${trace}))`);
  const [{ n }] = (await tx.execute<{ n: number }>(sql`select count(*)::int as n from jobs where parent_trace_id = ${trace}`)).rows as [{ n: number }];
  if (n >= limits.max_per_execution) {
    throw new JobInputError(`this run has created ${n} child jobs (its sub-agents' and earlier attempts' included), the most tools.child_jobs.max_per_execution allows`, 'business');
  }
  // the new job is depth 1 below a scheduled job or a session, one more below each child job above it
  const depth = 1 + lineage.filter((above) => above.origin !== 'cronjob').length;
  if (depth > limits.max_depth) throw new JobInputError(`child jobs nest at most ${limits.max_depth} deep (tools.child_jobs.max_depth)`, 'business');
}

/**
 * The paused job above a child job, if any, among its ancestors (jobLineage, parent first): its work is
 * that job's work, and a pause (an incident's first move) must stop it too, not only the runs the schedule fires.
 */
export function pausedAncestor(ancestors: readonly JobRow[]): JobRow | null {
  return ancestors.find((above) => above.paused) ?? null;
}

/** How far up a child job's run looks for a pause: the nesting limit's ceiling, and then some. */
export const PAUSE_LOOKUP_DEPTH = 8;

/** Advisory lock class for "one run creates a child job". */
const CHILD_LOCK_CLASS = 0x6368696c; // 'chil'

export interface ChildSummary {
  readonly id: string;
  readonly name: string;
  readonly origin: string;
  readonly created_at: string;
  readonly removed: boolean;
  readonly last_run: { id: string; state: string; error: string | null; output?: unknown } | null;
}

export async function summarise(deps: JobServiceDeps, job: JobRow, withOutput = false): Promise<ChildSummary> {
  const [last] = await listRuns(deps.db, { job_id: job.id, limit: 1 });
  return {
    id: job.id, name: job.name, origin: job.origin, created_at: job.created_at.toISOString(), removed: job.removed_at !== null,
    last_run: last ? { id: last.id, state: last.state, error: last.error, ...(withOutput ? { output: last.output } : {}) } : null,
  };
}

/** The child jobs of one origin that the caller made (see madeBy), newest first. */
export async function listChildJobs(deps: JobServiceDeps, origin: ChildOrigin, ctx: ToolExecutionContext): Promise<ChildSummary[]> {
  const rows = (await listJobs(deps.db, { owner: ctx.user_id || 'unknown', limit: 1000 })).filter((j) => j.origin === origin && madeBy(j, ctx));
  return Promise.all(rows.slice(0, 50).map((j) => summarise(deps, j)));
}

/**
 * Whether the caller made this child: the same owner, and the same creating job (a daemon run's, or none for an
 * attended session's). A child runs under its creator's grant: run again by another job's run, or by an attended
 * session, it would lend that grant to a caller who does not hold it (I5); its output is that job's too.
 */
function madeBy(job: JobRow, ctx: ToolExecutionContext): boolean {
  return job.owner === (ctx.user_id || 'unknown') && job.parent_job_id === jobOfContext(ctx);
}

/** A child job of this origin the caller made, or null: nobody reads, runs or cancels another's tasks. */
export async function ownChildJob(deps: JobServiceDeps, origin: ChildOrigin, id: string, ctx: ToolExecutionContext): Promise<JobRow | null> {
  const job = await getJob(deps.db, id, { includeRemoved: true });
  return job && job.origin === origin && madeBy(job, ctx) ? job : null;
}

/** Removes the job; removeJob cancels its runs that have not started. Returns how many it cancelled. */
export async function cancelChildJob(deps: JobServiceDeps, job: JobRow, ctx: ToolExecutionContext): Promise<number> {
  const pending = await listRuns(deps.db, { job_id: job.id, states: ['queued', 'retrying'] });
  await removeJob(deps.db, job.id, { ...changerOf(ctx), why: `cancelled through ${job.origin}` }, instantsDroppedByRemoval);
  return pending.length;
}
