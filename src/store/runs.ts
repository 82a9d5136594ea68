import { and, asc, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { redact, redactText } from '../util/redact.ts';
import { jsonSafe } from './audit.ts';
import { namedQuery, runNamed, type Executor, type NamedStatement } from './db.ts';
import { newId } from './ids.ts';
import { pgColumn, pgTextArray } from './pg-array.ts';
import { rowFrom } from './row-mapping.ts';
import { runs, type RunRow, type RunState } from './schema.ts';

export interface NewRun {
  readonly job_id: string;
  readonly nominal_at: Date;
  readonly trigger?: 'cron' | 'manual';
  /** 'skipped' records an instant that was not run, with skip_reason (I13: every instant is accounted for). */
  readonly state?: 'queued' | 'skipped';
  readonly skip_reason?: string;
  readonly not_before?: Date | null;
  /** Part of a catch-up that runs alone and in nominal order (misfire run_all under overlap skip or buffer_one). */
  readonly catch_up?: boolean;
}

/** I13: the first insert for (job, nominal instant) wins; later ones get nothing back. */
export async function insertRun(exec: Executor, r: NewRun): Promise<RunRow | null> {
  const [row] = await insertRuns(exec, [r]);
  return row ?? null;
}

/**
 * Batch form of insertRun: returns only the rows this call created. Columns go
 * in as arrays through unnest: a 1,000-row multi-VALUES insert spent most of a
 * firing pass binding its 8,000 parameters.
 */
export async function insertRuns(exec: Executor, rs: readonly NewRun[]): Promise<RunRow[]> {
  return (await insertRunRows(exec, rs, 'full')).map((raw) => rowFrom(runs, raw));
}

/** What the firing loop needs back of the runs it created: enqueue them and report lateness. */
export type CreatedRun = Pick<RunRow, 'id' | 'job_id' | 'nominal_at' | 'state' | 'not_before' | 'skip_reason'>;

/** insertRuns returning only CreatedRun's columns, for the firing loop's thousand-row passes. */
export async function createRuns(exec: Executor, rs: readonly NewRun[]): Promise<CreatedRun[]> {
  return insertRunRows(exec, rs, 'brief') as unknown as Promise<CreatedRun[]>;
}

async function insertRunRows(exec: Executor, rs: readonly NewRun[], returning: 'full' | 'brief'): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < rs.length; i += INSERT_CHUNK) {
    const chunk = rs.slice(i, i + INSERT_CHUNK);
    const col = (f: (r: NewRun) => string | null) => pgColumn(chunk, f);
    out.push(...await namedQuery(exec, `echo_insert_runs_${returning}`, returning === 'full' ? INSERT_RUNS_FULL : INSERT_RUNS_BRIEF, [
      col(() => newId('run')), col((r) => r.job_id), col((r) => r.nominal_at.toISOString()), col((r) => r.trigger ?? 'cron'),
      col((r) => r.state ?? 'queued'), col((r) => r.skip_reason ?? null), col((r) => r.not_before?.toISOString() ?? null),
      col((r) => (r.catch_up ? 'true' : 'false')),
    ]));
  }
  return out;
}

const INSERT_RUNS = `
  insert into runs (id, job_id, nominal_at, trigger, state, skip_reason, not_before, catch_up, finished_at)
  select v.id, v.job_id, v.nominal_at, v.trigger, v.state, v.skip_reason, v.not_before, v.catch_up, case when v.state = 'skipped' then now() end
  from unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::boolean[])
    as v(id, job_id, nominal_at, trigger, state, skip_reason, not_before, catch_up)
  on conflict (job_id, nominal_at) do nothing`;
const INSERT_RUNS_FULL = `${INSERT_RUNS} returning *`;
const INSERT_RUNS_BRIEF = `${INSERT_RUNS} returning id, job_id, nominal_at, state, not_before, skip_reason`;
const INSERT_CHUNK = 5000;

export async function recordSkip(exec: Executor, s: { job_id: string; nominal_at: Date; reason: string; trigger?: 'cron' | 'manual' }): Promise<RunRow | null> {
  return insertRun(exec, { job_id: s.job_id, nominal_at: s.nominal_at, trigger: s.trigger, state: 'skipped', skip_reason: s.reason });
}

/**
 * Extends the lease while the run is still ours; false means someone took it over. `attempt` binds it to
 * the attempt that holds the lease: the same worker may have claimed the run again since (a later attempt).
 */
export async function renewLease(exec: Executor, r: { run_id: string; owner: string; attempt?: number; lease_seconds: number }): Promise<boolean> {
  const rows = await exec.update(runs)
    .set({ lease_expires_at: sql`now() + make_interval(secs => ${r.lease_seconds})` })
    .where(and(eq(runs.id, r.run_id), eq(runs.state, 'running'), eq(runs.lease_owner, r.owner),
      r.attempt !== undefined ? eq(runs.attempt, r.attempt) : undefined))
    .returning({ id: runs.id });
  return rows.length === 1;
}

export type FinalState = Exclude<RunState, 'queued' | 'running' | 'retrying' | 'skipped'>;

export interface Finish {
  readonly run_id: string;
  /** When given, only the lease holder may finish the run. */
  readonly owner?: string;
  readonly state: FinalState;
  readonly output?: unknown;
  readonly error?: string | null;
  readonly denials?: number;
  readonly cron_authorized?: boolean;
  readonly grant_id?: string | null;
  /**
   * The attempt that ran: a running run is finished only while it is still this attempt (its worker may
   * have lost the lease and claimed the run again as the next one). The claim commits asynchronously, so a
   * database crash can lose it after the run's first record went through; the run is then back to queued
   * with the attempt before. Finishing it anyway keeps it from running twice.
   */
  readonly attempt?: number;
}

/** Records the outcome of a running run; output and error are redacted (I11). */
export async function finishRun(exec: Executor, f: Finish): Promise<RunRow | null> {
  return runNamed(exec, finishRunStatement(f));
}

/** finishRun as one named statement, which the audit writer can send with the run's final record. */
export function finishRunStatement(f: Finish): NamedStatement<RunRow | null> {
  const given = (v: unknown) => v !== undefined;
  return {
    name: 'echo_finish_run',
    text: FINISH,
    values: [
      f.run_id, f.owner ?? null, f.state,
      given(f.output), f.output === undefined || f.output === null ? null : JSON.stringify(jsonSafe(redact(f.output))),
      given(f.error), f.error === undefined || f.error === null ? null : redactText(f.error),
      f.denials ?? null, f.cron_authorized ?? null, given(f.grant_id), f.grant_id ?? null, f.attempt ?? null,
    ],
    result: ([raw]) => (raw ? rowFrom(runs, raw) : null),
    target: `runs:${f.run_id}`,
  };
}

const FINISH = `
  update runs set state = $3, finished_at = now(), lease_expires_at = null,
    output = case when $4::boolean then $5::jsonb else output end,
    error = case when $6::boolean then $7::text else error end,
    denials = coalesce($8::int, denials),
    cron_authorized = coalesce($9::boolean, cron_authorized),
    grant_id = case when $10::boolean then $11::text else grant_id end,
    attempt = coalesce($12::int, attempt)
  where id = $1 and (
    (state = 'running' and ($2::text is null or lease_owner = $2::text) and ($12::int is null or attempt = $12::int))
    or ($12::int is not null and state in ('queued', 'retrying') and attempt = $12::int - 1))
  returning *`;

/**
 * Who may end a running run: its lease holder (`owner`), or, with
 * `leaseExpired`, anyone, but only while that holder's lease is still expired
 * by the database clock, so a holder that renewed in the meantime keeps it.
 * `attempt`: only while the run is still that attempt; a worker id alone does
 * not tell one attempt from the next when the same worker claimed it again.
 */
export interface RunningHolder {
  readonly owner?: string;
  readonly attempt?: number;
  readonly leaseExpired?: boolean;
}

const heldBy = (h: RunningHolder) => and(
  eq(runs.state, 'running'),
  h.owner ? eq(runs.lease_owner, h.owner) : undefined,
  h.attempt !== undefined ? eq(runs.attempt, h.attempt) : undefined,
  h.leaseExpired ? lt(runs.lease_expires_at, sql`now()`) : undefined,
);

/** Back to retrying, due `backoff_ms` from now on the database clock, which the claim compares not_before with. */
export async function retryRun(exec: Executor, r: RunningHolder & { run_id: string; error: string; backoff_ms: number }): Promise<RunRow | null> {
  const [row] = await exec.update(runs).set({
    state: 'retrying', error: redactText(r.error), not_before: sql`now() + make_interval(secs => ${r.backoff_ms / 1000}::double precision)`,
    lease_owner: null, lease_expires_at: null,
  }).where(and(eq(runs.id, r.run_id), heldBy(r))).returning();
  return row ?? null;
}

/** Shutdown or a dead lease holder: the run ends as interrupted, never silently lost. */
export async function markInterrupted(exec: Executor, r: RunningHolder & { run_id: string; reason: string }): Promise<RunRow | null> {
  const [row] = await exec.update(runs).set({
    state: 'interrupted', error: redactText(r.reason), finished_at: sql`now()`, lease_expires_at: null,
  }).where(and(eq(runs.id, r.run_id), heldBy(r))).returning();
  return row ?? null;
}

/**
 * Counts one gate refusal; returns the new total. With `attempt`, only while that attempt runs: a refusal
 * arriving late from an attempt whose run was taken over must not count against the next one (null then).
 */
export async function addDenial(exec: Executor, runId: string, attempt?: number): Promise<number | null> {
  const [row] = await exec.update(runs).set({ denials: sql`${runs.denials} + 1` })
    .where(and(eq(runs.id, runId), attempt !== undefined ? and(eq(runs.attempt, attempt), eq(runs.state, 'running')) : undefined))
    .returning({ denials: runs.denials });
  return row?.denials ?? null;
}

/** Running runs whose lease ran out (the holder died, hung or lost its database), by the database clock. */
export async function listExpiredLeases(exec: Executor, opts: { limit?: number } = {}): Promise<RunRow[]> {
  return exec.select().from(runs)
    .where(and(eq(runs.state, 'running'), lt(runs.lease_expires_at, sql`now()`)))
    .orderBy(asc(runs.lease_expires_at)).limit(opts.limit ?? 500);
}

/** Running runs whose lease holder's id holds `mark`: those held by workers of one PID namespace. */
export async function listRunningHeldIn(exec: Executor, mark: string): Promise<RunRow[]> {
  // strpos, not like: the mark is matched as it is, whatever it holds
  return exec.select().from(runs).where(and(eq(runs.state, 'running'), sql`strpos(${runs.lease_owner}, ${mark}) > 0`)).limit(500);
}

/** Runs waiting for a worker (queued, or retrying), oldest first; `after`: the last run of the previous page. */
export async function listQueued(exec: Executor, opts: { limit?: number; after?: Pick<RunRow, 'id'>; dueForSeconds?: number } = {}): Promise<RunRow[]> {
  return exec.select().from(runs)
    .where(and(inArray(runs.state, ['queued', 'retrying']),
      // queued (or due to retry) at least this long ago, by the database clock: its hand-off to the queue is overdue
      opts.dueForSeconds ? sql`greatest(${runs.queued_at}, coalesce(${runs.not_before}, ${runs.queued_at})) < now() - make_interval(secs => ${opts.dueForSeconds}::double precision)` : undefined,
      // compared in the database: queued_at has microseconds a JavaScript Date would drop
      opts.after ? sql`(${runs.queued_at}, ${runs.id}) > (select r.queued_at, r.id from runs r where r.id = ${opts.after.id})` : undefined))
    .orderBy(asc(runs.queued_at), asc(runs.id)).limit(opts.limit ?? 1000);
}

/**
 * Every waiting run, a page at a time: what the reconciler re-enqueues. All of them, not a first page: runs
 * held back behind an earlier sibling (a catch-up) must not hide that sibling.
 */
export async function* allQueued(exec: Executor, pageSize = 1000, dueForSeconds = 0): AsyncGenerator<RunRow> {
  let page = await listQueued(exec, { limit: pageSize, dueForSeconds });
  while (page.length > 0) {
    yield* page;
    page = page.length < pageSize ? [] : await listQueued(exec, { limit: pageSize, after: page[page.length - 1]!, dueForSeconds });
  }
}

export async function getRun(exec: Executor, id: string): Promise<RunRow | null> {
  const [row] = await exec.select().from(runs).where(eq(runs.id, id));
  return row ?? null;
}

/**
 * A run with a call or step refused: counted (denials above 0), or refused before the gate's steps (bad arguments,
 * gate step 0 args.invalid, not counted): what `audit list --outcome deny` lists for it (the audit index on run_id finds it).
 */
const REFUSED = sql`(${runs.denials} > 0 or exists (select 1 from audit_events a where a.run_id = ${runs.id} and a.kind = 'gate.decision' and a.outcome = 'deny'))`;

/** A run that ended with something wrong: a final state other than succeeded (skipped is no run), or an error whatever its state. */
const PROBLEM = sql`(${runs.state} in ('failed', 'denied', 'timed_out', 'interrupted', 'cancelled')
  or (${runs.state} = 'succeeded' and coalesce(${runs.error}, '') <> ''))`;

/**
 * Runs, newest instant first. `refused`: only runs that had a call or step refused, whatever their state: an agent run
 * can succeed with calls refused, and `runs list --refused` must still find it. `problems`: only runs that ended wrong
 * or with an error (PROBLEM): a succeeded agent run whose calls failed included.
 */
export async function listRuns(
  exec: Executor, f: { job_id?: string; states?: readonly RunState[]; since?: Date; limit?: number; refused?: boolean; problems?: boolean } = {},
): Promise<RunRow[]> {
  return exec.select().from(runs)
    .where(and(f.job_id ? eq(runs.job_id, f.job_id) : undefined, f.states?.length ? inArray(runs.state, [...f.states]) : undefined,
      f.since ? gte(runs.nominal_at, f.since) : undefined, f.refused ? REFUSED : undefined, f.problems ? PROBLEM : undefined))
    .orderBy(desc(runs.nominal_at), desc(runs.id)).limit(f.limit ?? 100);
}

/** Skipped instants by their rule (the reason's first part), under listRuns' filters: what a paused job leaves, counted. */
export async function skippedByRule(exec: Executor, f: { job_id?: string; since?: Date } = {}): Promise<Map<string, number>> {
  const rule = sql<string>`split_part(coalesce(${runs.skip_reason}, ''), ':', 1)`;
  const rows = await exec.select({ rule, n: sql<number>`count(*)::int` }).from(runs)
    .where(and(eq(runs.state, 'skipped'), f.job_id ? eq(runs.job_id, f.job_id) : undefined, f.since ? gte(runs.nominal_at, f.since) : undefined))
    .groupBy(rule).orderBy(desc(sql`count(*)`));
  return new Map(rows.map((r) => [r.rule || '-', r.n]));
}

/** Runs of a job that are queued or running now (for overlap policies). */
export async function activeRuns(exec: Executor, jobId: string): Promise<RunRow[]> {
  return exec.select().from(runs)
    .where(and(eq(runs.job_id, jobId), inArray(runs.state, ['queued', 'running', 'retrying'])))
    .orderBy(asc(runs.nominal_at));
}

/** What the overlap check needs of a run. */
export type ActiveRun = Pick<RunRow, 'id' | 'job_id' | 'state' | 'nominal_at'>;

/** Active runs of many jobs in one query (the firing loop's overlap check); the ids go in as one array. */
export async function activeRunsOf(exec: Executor, jobIds: readonly string[]): Promise<Map<string, ActiveRun[]>> {
  const byJob = new Map<string, ActiveRun[]>();
  if (jobIds.length === 0) return byJob;
  const rows = await namedQuery<ActiveRun & Record<string, unknown>>(exec, 'echo_active_runs_of', `
    select id, job_id, state, nominal_at from runs
    where job_id = any($1::text[]) and state in ('queued', 'running', 'retrying')
    order by nominal_at`, [pgTextArray(jobIds)]);
  for (const r of rows) {
    const list = byJob.get(r.job_id);
    if (list) list.push(r);
    else byJob.set(r.job_id, [r]);
  }
  return byJob;
}

/** Cancels a run that has not finished (overlap `cancel_other`, admin action). */
export async function cancelRun(exec: Executor, r: { run_id: string; reason: string }): Promise<RunRow | null> {
  const [row] = await exec.update(runs).set({
    state: 'cancelled', error: redactText(r.reason), finished_at: sql`now()`, lease_expires_at: null,
  }).where(and(eq(runs.id, r.run_id), inArray(runs.state, ['queued', 'running', 'retrying']))).returning();
  return row ?? null;
}
