import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { AUTHORISED_FIELDS } from '../jobs/definition.ts';
import { canonicalJson } from '../util/canonical-json.ts';
import { appendAudit, callColumns, jsonSafe, type CallIds } from './audit.ts';
import { databaseNow, namedQuery, type Executor } from './db.ts';
import { definitionHash } from './definition-hash.ts';
import { clearGrant } from './grants.ts';
import { newId } from './ids.ts';
import { pgColumn } from './pg-array.ts';
import { insertRuns, type NewRun } from './runs.ts';
import { FINAL_RUN_STATES, jobs, RUN_STATES, runs, type GrantRow, type JobRow } from './schema.ts';

type Computed = 'id' | 'definition_hash' | 'fired_count' | 'created_at' | 'updated_at' | 'removed_at' | 'last_fire_at';
export type NewJob = Omit<typeof jobs.$inferInsert, Computed>;
export type JobPatch = Partial<Omit<NewJob, 'created_by'>>;
/** An edit decided from the job as locked: the patch, and the due instants it takes from the firing loop, recorded as skipped runs. */
export interface LockedEdit { readonly patch: JobPatch; readonly skipped?: readonly NewRun[] }

const DEFINITION_KEYS = AUTHORISED_FIELDS;

export async function createJob(exec: Executor, input: NewJob, opts: { id?: string; call?: CallIds } = {}): Promise<JobRow> {
  return exec.transaction(async (tx) => {
    const payload = jsonSafe(input.payload);
    const row = {
      ...input,
      id: opts.id ?? newId('job'),
      payload,
      tools: [...(input.tools ?? [])],
      definition_hash: definitionHash({ ...input, payload }),
    };
    const [job] = await tx.insert(jobs).values(row).returning();
    await appendAudit(tx, {
      kind: 'job.created', actor: input.created_by, job_id: job!.id, ...callColumns(opts.call),
      data: { name: job!.name, owner: job!.owner, definition_hash: job!.definition_hash, definition: definitionOf(job!) },
    });
    return job!;
  });
}

export interface JobUpdate {
  readonly job: JobRow;
  readonly before: JobRow;
  readonly changed: readonly string[];
  /** payload, tools, schedule, timezone or delivery changed: the old approval no longer covers it (I2). */
  readonly definitionChanged: boolean;
  readonly clearedGrant: GrantRow | null;
}

/** Who changes a job, and the tool call it came through (none from the command line). */
export interface JobChanger {
  readonly actor: string;
  readonly call?: CallIds;
}

/** A job that is not removed, locked for the rest of the caller's transaction; null when there is none. */
export async function lockLiveJob(tx: Executor, id: string): Promise<JobRow | null> {
  const [job] = await tx.select().from(jobs).where(and(eq(jobs.id, id), isNull(jobs.removed_at))).for('update');
  return job ?? null;
}

/** The job's definition changed after the moment a change to it was approved against. */
export class DefinitionChangedSince extends Error {
  constructor(readonly jobId: string, readonly at: Date) {
    super(`job ${jobId}'s definition was changed at ${at.toISOString()}`);
    this.name = 'DefinitionChangedSince';
  }
}

/**
 * Applies a patch. A definition change clears the live grant in the same
 * transaction; a human-approved change then issues a new one (issueGrant).
 * A changed schedule needs a new next_fire_at in the same patch (the scheduler computes it).
 * `unchangedSince`: refuse (DefinitionChangedSince) when the definition changed at or after that instant (milliseconds),
 * judged under the job's lock from its own job.updated records, so a pause or a resume does not count.
 * A function edit is computed from the locked row: a firing pass that committed since an unlocked read is not undone.
 */
export async function updateJob(exec: Executor, id: string, edit: JobPatch | ((locked: JobRow) => LockedEdit), by: JobChanger, opts: { unchangedSince?: Date } = {}): Promise<JobUpdate | null> {
  return exec.transaction(async (tx) => {
    const before = await lockLiveJob(tx, id);
    if (!before) return null;
    if (opts.unchangedSince) {
      const [changed] = (await tx.execute<{ at: Date }>(sql`select at from audit_events where job_id = ${id} and kind = 'job.updated'
        and at >= ${opts.unchangedSince} and (data->>'definition_changed')::boolean order by seq desc limit 1`)).rows;
      if (changed) throw new DefinitionChangedSince(id, new Date(changed.at));
    }
    const { patch, skipped = [] } = typeof edit === 'function' ? edit(before) : { patch: edit };
    if (skipped.length > 0) await insertRuns(tx, skipped);
    const next = { ...before, ...stripUndefined(patch) };
    next.payload = jsonSafe(next.payload);
    const hash = definitionHash(next);
    // canonical: jsonb hands the stored payload back with its keys reordered
    const changed = Object.keys(stripUndefined(patch)).filter((k) => canonicalJson(jsonSafe((before as Record<string, unknown>)[k])) !== canonicalJson(jsonSafe((next as Record<string, unknown>)[k])));
    const definitionChanged = hash !== before.definition_hash;
    const [job] = await tx.update(jobs)
      .set({ ...stripUndefined(patch), payload: next.payload, definition_hash: hash, updated_at: sql`now()` })
      .where(eq(jobs.id, id)).returning();
    await appendAudit(tx, {
      kind: 'job.updated', actor: by.actor, job_id: id, ...callColumns(by.call),
      data: { changed, definition_changed: definitionChanged, definition_hash_before: before.definition_hash, definition_hash: hash, ...(definitionChanged ? { definition: definitionOf(job!) } : {}),
        ...(skipped.length > 0 ? { due_instants_skipped: skipped.length } : {}) },
    });
    const clearedGrant = definitionChanged
      ? await clearGrant(tx, id, { by: by.actor, ...(by.call ? { call: by.call } : {}), why: `definition changed (${changed.filter((k) => (DEFINITION_KEYS as readonly string[]).includes(k)).join(', ')})` })
      : null;
    return { job: job!, before, changed, definitionChanged, clearedGrant };
  });
}

export async function getJob(exec: Executor, id: string, opts: { includeRemoved?: boolean } = {}): Promise<JobRow | null> {
  const [job] = await exec.select().from(jobs).where(and(eq(jobs.id, id), opts.includeRemoved ? undefined : isNull(jobs.removed_at)));
  return job ?? null;
}

/**
 * The job `id` and the jobs above it, parent links followed, at most `limit` of them, in one query:
 * what a child job's run needs to know about the jobs whose runs made it.
 */
export async function jobLineage(exec: Executor, id: string, limit: number): Promise<JobRow[]> {
  const found = await exec.select().from(jobs).where(inArray(jobs.id, sql`(
    with recursive up(id, parent_job_id, depth) as (
      select id, parent_job_id, 1 from ${jobs} where id = ${id}
      union all
      select j.id, j.parent_job_id, up.depth + 1 from ${jobs} j join up on j.id = up.parent_job_id where up.depth < ${limit})
    select id from up)`));
  const byId = new Map(found.map((j) => [j.id, j]));
  const line: JobRow[] = [];
  for (let j = byId.get(id); j && line.length < limit; j = j.parent_job_id ? byId.get(j.parent_job_id) : undefined) line.push(j);
  return line;
}

/** A live child job made under a grant, and whether a run of it is queued, running or waiting to retry. */
export interface MadeUnder {
  readonly job: JobRow;
  readonly underway: boolean;
}

/** Run states that are not final: a job with such a run still does something, whatever its schedule says. */
const UNDERWAY = RUN_STATES.filter((s) => !(FINAL_RUN_STATES as readonly string[]).includes(s));

/**
 * Live child jobs made under one of these grants (their `parent_grant_id`), grandchildren included: they carry it
 * down; each with whether a run of it is under way (a one-shot child with none and no instant left is finished).
 */
export async function liveJobsMadeUnder(exec: Executor, grantIds: readonly string[]): Promise<MadeUnder[]> {
  const unique = [...new Set(grantIds)];
  if (unique.length === 0) return [];
  const made = await exec.select().from(jobs).where(and(inArray(jobs.parent_grant_id, unique), isNull(jobs.removed_at))).orderBy(asc(jobs.created_at), asc(jobs.id));
  if (made.length === 0) return [];
  const busy = new Set((await exec.selectDistinct({ job_id: runs.job_id }).from(runs)
    .where(and(inArray(runs.job_id, made.map((j) => j.id)), inArray(runs.state, UNDERWAY)))).map((r) => r.job_id));
  return made.map((job) => ({ job, underway: busy.has(job.id) }));
}

/** Several jobs by id in one query, removed ones included (lists that name the job of each row). */
export async function jobsById(exec: Executor, ids: readonly string[]): Promise<Map<string, JobRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  return new Map((await exec.select().from(jobs).where(inArray(jobs.id, unique))).map((j) => [j.id, j]));
}

/** Jobs with this exact name, live ones first (names need not be unique). */
export async function jobsNamed(exec: Executor, name: string): Promise<JobRow[]> {
  return exec.select().from(jobs).where(eq(jobs.name, name)).orderBy(sql`${jobs.removed_at} is not null`, asc(jobs.created_at), asc(jobs.id)).limit(50);
}

export async function listJobs(exec: Executor, f: { owner?: string; includeRemoved?: boolean; limit?: number } = {}): Promise<JobRow[]> {
  return exec.select().from(jobs)
    .where(and(f.owner ? eq(jobs.owner, f.owner) : undefined, f.includeRemoved ? undefined : isNull(jobs.removed_at)))
    .orderBy(asc(jobs.created_at), asc(jobs.id)).limit(f.limit ?? 10_000);
}

/** A pause or resume: the job after it, and whether it changed anything (pausing a paused job with no new note does not). */
export interface PauseOutcome {
  readonly job: JobRow;
  readonly changed: boolean;
  /** Whether it was paused before: a second pause that only changes the note says so. */
  readonly was_paused: boolean;
}

/** Pausing a paused job keeps its note unless a new one is given: a second pause must not erase why it was paused. */
export async function pauseJob(exec: Executor, id: string, by: JobChanger & { note?: string }, dueTaken: DueTaker): Promise<PauseOutcome | null> {
  return setPaused(exec, id, true, by, by.note ?? null, dueTaken);
}

/**
 * `dueTaken`: the instants due while paused that the firing loop has not recorded yet (it records a
 * paused job's instants as they fall due), decided from the job as locked; they go in as skipped
 * runs and the schedule goes on from next_fire_at.
 */
export async function resumeJob(exec: Executor, id: string, by: JobChanger, dueTaken: DueTaker): Promise<PauseOutcome | null> {
  return setPaused(exec, id, false, by, null, dueTaken);
}

/** Due instants a pause or resume takes from the firing loop, and where the schedule goes on. */
export interface DueTaken extends DroppedInstants {
  readonly next_fire_at?: Date | null;
}
/** Decides DueTaken from the job as locked and the database clock. */
export type DueTaker = (locked: JobRow, now: Date) => DueTaken;

async function setPaused(exec: Executor, id: string, paused: boolean, by: JobChanger, note: string | null, dueTaken: DueTaker): Promise<PauseOutcome | null> {
  return exec.transaction(async (tx) => {
    const current = await lockLiveJob(tx, id);
    if (!current) return null;
    const keptNote = paused && current.paused ? note ?? current.pause_note : note;
    if (current.paused === paused && keptNote === current.pause_note) return { job: current, changed: false, was_paused: current.paused };
    // the instants a pause or resume takes from the firing loop; a second pause (a new note) takes none
    const m = current.paused !== paused ? dueTaken(current, await databaseNow(tx)) : null;
    if (m && m.skipped.length > 0) await insertRuns(tx, m.skipped);
    const [job] = await tx.update(jobs)
      .set({ paused, pause_note: keptNote, updated_at: sql`now()`, ...(m?.next_fire_at !== undefined ? { next_fire_at: m.next_fire_at } : {}) })
      .where(eq(jobs.id, id)).returning();
    await appendAudit(tx, {
      kind: paused ? 'job.paused' : 'job.resumed', actor: by.actor, job_id: id, ...callColumns(by.call), reason: keptNote,
      data: { ...(current.paused === paused ? { note_changed: true } : {}), ...(m ? droppedData(m, paused ? 'due_instants_skipped_at_pause' : 'due_instants_skipped_as_paused') : {}) },
    });
    return { job: job!, changed: true, was_paused: current.paused };
  });
}

/** How a record names the due instants an action recorded as skipped, and the range of any it could not. */
function droppedData(d: DroppedInstants, counted: string): Record<string, unknown> {
  return {
    ...(d.skipped.length > 0 ? { [counted]: d.skipped.length } : {}),
    ...(d.unrecorded ? { due_instants_not_recorded: { after: d.unrecorded.after.toISOString(), until: d.unrecorded.until.toISOString() } } : {}),
  };
}

/** Due instants a removal ends, as skipped runs; past the edit limit the rest is only named by its range. */
export interface DroppedInstants {
  readonly skipped: readonly NewRun[];
  readonly unrecorded: { readonly after: Date; readonly until: Date } | null;
}

/**
 * Soft delete: the row, its runs, grants and audit trail stay for the record.
 * The live grant ends and runs not yet started are cancelled.
 */
export async function removeJob(exec: Executor, id: string, by: JobChanger & { why?: string }, dueInstants: (locked: JobRow, now: Date) => DroppedInstants): Promise<JobRow | null> {
  return exec.transaction(async (tx) => {
    const before = await lockLiveJob(tx, id);
    if (!before) return null;
    // the instants due and not yet fired end with the job: each is recorded as skipped (I13)
    const dropped = dueInstants(before, await databaseNow(tx));
    if (dropped.skipped.length > 0) await insertRuns(tx, dropped.skipped);
    const [job] = await tx.update(jobs)
      .set({ removed_at: sql`now()`, next_fire_at: null, updated_at: sql`now()` })
      .where(eq(jobs.id, id)).returning();
    const cancelled = await tx.update(runs)
      .set({ state: 'cancelled', finished_at: sql`now()`, error: 'job removed' })
      .where(and(eq(runs.job_id, id), inArray(runs.state, ['queued', 'retrying']))).returning({ id: runs.id });
    await appendAudit(tx, {
      kind: 'job.removed', actor: by.actor, job_id: id, ...callColumns(by.call), reason: by.why ?? null,
      data: { cancelled_runs: cancelled.map((r) => r.id), ...droppedData(dropped, 'due_instants_skipped') },
    });
    await clearGrant(tx, id, { by: by.actor, ...(by.call ? { call: by.call } : {}), why: 'job removed' });
    return job!;
  });
}

/** What the firing loop reads of a due job: its schedule and firing policies, nothing else. */
export type DueJob = Pick<JobRow,
  'id' | 'schedule' | 'timezone' | 'next_fire_at' | 'misfire_policy' | 'catchup_window_seconds' | 'max_runs' | 'fired_count' | 'overlap_policy' | 'jitter_seconds' | 'paused'>;

/**
 * Live jobs due by `now` (default: the database clock), paused ones too (their instants are
 * recorded as they fall due), locked for this transaction; SKIP LOCKED hands each to one replica.
 * A named statement of only the firing columns: a pass reads a thousand of them.
 */
export async function lockDueJobs(tx: Executor, opts: { limit: number; now?: Date }): Promise<DueJob[]> {
  const rows = await namedQuery<DueJob & Record<string, unknown>>(tx, 'echo_lock_due_jobs', `
    select id, schedule, timezone, next_fire_at, misfire_policy, catchup_window_seconds, max_runs, fired_count, overlap_policy, jitter_seconds, paused
    from jobs
    where removed_at is null and next_fire_at <= coalesce($1::timestamptz, now())
    order by next_fire_at limit $2
    for update skip locked`, [opts.now?.toISOString() ?? null, opts.limit]);
  return rows;
}

/** The database clock, the earliest instant a job falls due (the firing loop sleeps until then) and that job; one index lookup. */
export async function nextDueReading(exec: Executor): Promise<{ now: Date; next: Date | null; job: string | null }> {
  const res = await exec.execute<{ now: Date; next: Date | null; job: string | null }>(sql`
    select date_trunc('milliseconds', clock_timestamp()) as now, d.next_fire_at as next, d.id as job
    from (select 1) one left join lateral (
      select ${jobs.id}, ${jobs.next_fire_at} from ${jobs} where ${jobs.removed_at} is null and ${jobs.next_fire_at} is not null
      order by ${jobs.next_fire_at}, ${jobs.id} limit 1) d on true`);
  const row = res.rows[0]!;
  return { now: new Date(row.now), next: row.next === null ? null : new Date(row.next), job: row.job };
}

/** Moves a job's schedule on after firing. */
export async function advanceJob(exec: Executor, id: string, a: { next_fire_at: Date | null; last_fire_at?: Date; fired?: number }): Promise<void> {
  await exec.update(jobs).set({
    next_fire_at: a.next_fire_at,
    ...(a.last_fire_at ? { last_fire_at: a.last_fire_at } : {}),
    ...(a.fired ? { fired_count: sql`${jobs.fired_count} + ${a.fired}` } : {}),
  }).where(eq(jobs.id, id));
}

/** advanceJob for many jobs in one statement (the firing loop after a pass); columns as arrays, one parameter each. */
export async function advanceJobs(exec: Executor, list: readonly { id: string; next_fire_at: Date | null; last_fire_at?: Date; fired?: number }[]): Promise<void> {
  for (let i = 0; i < list.length; i += 5000) {
    const chunk = list.slice(i, i + 5000);
    const col = (f: (a: (typeof chunk)[number]) => string | number | null) => pgColumn(chunk, f);
    await exec.execute(sql`
      update ${jobs} set next_fire_at = v.next_fire_at, last_fire_at = coalesce(v.last_fire_at, ${jobs.last_fire_at}), fired_count = ${jobs.fired_count} + v.fired
      from unnest(${col((a) => a.id)}::text[], ${col((a) => a.next_fire_at?.toISOString() ?? null)}::timestamptz[],
                  ${col((a) => a.last_fire_at?.toISOString() ?? null)}::timestamptz[], ${col((a) => a.fired ?? 0)}::int[])
        as v(id, next_fire_at, last_fire_at, fired)
      where ${jobs.id} = v.id`);
  }
}

/** What a human approves: the definition fields (for audit records and `grants show`). */
export function definitionOf(job: JobRow): Record<string, unknown> {
  return Object.fromEntries(DEFINITION_KEYS.map((k) => [k, job[k]]));
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
