import { namedQuery, type Executor } from './db.ts';
import { violatesUnique } from './pg-errors.ts';
import { rowFrom } from './row-mapping.ts';
import { jobGrants, jobs, runs, type GrantRow, type JobRow, type RunRow } from './schema.ts';
import { grantEndingFrom, lastGrantEndingSql, type GrantEnding } from './grants.ts';

export interface Claim {
  readonly run_id: string;
  /** Who holds the lease, e.g. `<host>:<pid>:<worker>`. */
  readonly owner: string;
  readonly lease_seconds: number;
  readonly execution_id?: string;
  readonly trace_id?: string;
}

export interface ClaimedRun {
  readonly run: RunRow;
  readonly job: JobRow;
  /** The job's live grant when the run was claimed (child jobs look up their parent's). */
  readonly liveGrant: GrantRow | null;
  /** Without a live grant, the job's last one and the record that ended it (a run after a revoke says so). */
  readonly lastEnding: GrantEnding | null;
}

/**
 * The worker's first act, in one statement: move the run to running (only one
 * caller can, so a redelivered duplicate gets 'duplicate') and read its job and
 * live grant. A buffer_one job's run, or a catch-up's, is not claimed while another
 * of its runs is running ('busy'), even when two workers claim siblings at once; a
 * catch-up's run also waits for the catch-up's earlier instants still waiting. The claim
 * commits asynchronously: nothing acts on it before the run's first audit
 * record, whose synchronous commit flushes the claim too; a claim lost in a
 * crash leaves the run queued, and nothing has happened yet.
 */
export async function claimRunWithJob(exec: Executor, c: Claim): Promise<ClaimedRun | 'duplicate' | 'unknown' | 'busy' | BehindEarlier | NotYetDue> {
  let row: ClaimRow | undefined;
  try {
    [row] = await namedQuery<ClaimRow>(exec, 'echo_claim_run', CLAIM, [c.run_id, c.owner, c.lease_seconds, c.execution_id ?? null, c.trace_id ?? null]);
  } catch (err) {
    // a sibling was claimed at the same instant, after this statement's snapshot was taken
    if (violatesUnique(err, 'runs_one_running_exclusive')) return 'busy';
    throw err;
  }
  if (row) return { run: rowFrom(runs, row.run), job: rowFrom(jobs, row.job), liveGrant: row.live_grant ? rowFrom(jobGrants, row.live_grant) : null, lastEnding: grantEndingFrom(row.last_ending) };
  // not claimed: already taken or finished, not yet due, or held back behind a running sibling
  const [still] = await namedQuery<{ state: string; wait_ms: number | null; ahead: number }>(exec, 'echo_run_state', `
    select r.state, case when r.not_before > now() then least(ceil(extract(epoch from r.not_before - now()) * 1000), 2147483000)::int end as wait_ms,
      case when r.catch_up then (select count(*) ${CATCH_UP_AHEAD})::int else 0 end as ahead
    from runs r where r.id = $1`, [c.run_id]);
  // no such run at all: not a redelivery but another deployment's run, on a queue two of them share
  if (!still) return 'unknown';
  if (still.state !== 'queued' && still.state !== 'retrying') return 'duplicate';
  if (still.wait_ms !== null) return { notYetDue: still.wait_ms };
  return still.ahead > 0 ? { behind: still.ahead } : 'busy';
}

/** A catch-up's run held back behind `behind` earlier instants of the catch-up that are still waiting. */
export interface BehindEarlier {
  readonly behind: number;
}

/** A retrying run delivered before its backoff ended (a stale redelivery): how long until it is due. */
export interface NotYetDue {
  readonly notYetDue: number;
}

type ClaimRow = { run: Record<string, unknown>; job: Record<string, unknown>; live_grant: Record<string, unknown> | null; last_ending: Parameters<typeof grantEndingFrom>[0] };

/** The catch-up's earlier instants still waiting, ahead of run `r` (served by runs_catch_up_waiting_idx). */
const CATCH_UP_AHEAD = `from runs o where o.job_id = r.job_id and o.catch_up and o.state in ('queued', 'retrying') and o.nominal_at < r.nominal_at`;

const CLAIM = `
  with commit_mode as (select set_config('synchronous_commit', 'off', true)),
  claimed as (
    -- denials = 0: each attempt is held to max_denials_per_run by its own refusals (a retry replays the same calls)
    update runs r set state = 'running', attempt = r.attempt + 1, denials = 0, lease_owner = $2,
      lease_expires_at = now() + make_interval(secs => $3::double precision), started_at = now(),
      execution_id = $4, trace_id = $5, exclusive = (r.catch_up or pj.overlap_policy = 'buffer_one')
    from jobs pj
    where r.id = $1 and pj.id = r.job_id and r.state in ('queued', 'retrying')
      and (r.not_before is null or r.not_before <= now())
      -- the usual case; the unique index runs_one_running_exclusive settles a race
      and not ((r.catch_up or pj.overlap_policy = 'buffer_one') and exists (
        select 1 from runs o where o.job_id = r.job_id and o.state = 'running' and o.id <> r.id))
      -- a catch-up's run also waits for the catch-up's earlier instants
      and not (r.catch_up and exists (select 1 ${CATCH_UP_AHEAD}))
    returning r.*
  )
  select to_jsonb(c.*) as run, to_jsonb(j.*) as job, case when g.id is null then null else to_jsonb(g.*) end as live_grant,
    -- no live grant: how the last one ended, in the same round trip (a run after a revoke names it)
    case when g.id is null and j.origin = 'cronjob' then ${lastGrantEndingSql('j.id')} end as last_ending
  from claimed c cross join commit_mode
    join jobs j on j.id = c.job_id
    left join job_grants g on g.job_id = j.id and g.revoked_at is null`;

/** Just the claimed run, or null when it was not claimed (duplicate or held back). */
export async function claimRun(exec: Executor, c: Claim): Promise<RunRow | null> {
  const claimed = await claimRunWithJob(exec, c);
  return typeof claimed === 'string' || 'notYetDue' in claimed || 'behind' in claimed ? null : claimed.run;
}
