import type { Executor } from '../store/db.ts';
import type { RunGrant } from '../approval/ports.ts';
import { AUTHORIZATION_RULES, authorization, liveGrant, scopeCovers, type Authorization } from '../store/grants.ts';
import { jobLineage, jobsById, liveJobsMadeUnder } from '../store/jobs.ts';
import type { GrantRow, JobRow } from '../store/schema.ts';

/** Child jobs of child jobs are followed this far up, no further. */
export const MAX_ANCESTRY = 4;

/**
 * cron_authorized for a run. A job made by cronjob needs its own human grant
 * (I2); a child job (task, workflow, spawn_task) has none of its own and
 * inherits its parent job's, checked at every run, so revoking the parent's
 * grant also stops the children (I5), and only the very grant its creating
 * run held (a later grant never reaches back). `liveGrant`: the job's own, already read;
 * `ancestors`: the jobs above it, parent first (jobLineage), already read.
 */
export async function runAuthorization(
  db: Executor, job: JobRow, opts: { liveGrant?: GrantRow | null; ancestors?: readonly JobRow[] } = {},
): Promise<Authorization> {
  if (job.origin === 'cronjob') return authorization(job, opts.liveGrant !== undefined ? opts.liveGrant : await liveGrant(db, job.id));
  if (job.removed_at) return authorization(job, null);
  const ancestors = (opts.ancestors ?? (job.parent_job_id ? await jobLineage(db, job.parent_job_id, MAX_ANCESTRY) : [])).slice(0, MAX_ANCESTRY);
  // the chain is followed up to its first cronjob job, whose grant is the only one it can hold
  const holder = ancestors.find((a) => a.origin === 'cronjob' && !a.removed_at);
  const grant = holder ? await liveGrant(db, holder.id) : null;
  return inherited(job, ancestors, (id) => (id === holder?.id ? grant : null));
}

/**
 * A live child job's authorization: what its parent's run held, if the child was made under that very grant.
 * Pure: `liveGrantOf` answers for the cronjob job the chain leads to (null: it has none).
 */
function inherited(job: JobRow, ancestors: readonly JobRow[], liveGrantOf: (jobId: string) => GrantRow | null): Authorization {
  const [parent, ...above] = ancestors;
  const held = !parent || parent.id !== job.parent_job_id ? null
    : parent.removed_at ? authorization(parent, null)
      : parent.origin === 'cronjob' ? authorization(parent, liveGrantOf(parent.id)) : inherited(parent, above, liveGrantOf);
  // a grant issued after the child was made (or replacing the one it was made under) covers a definition, not this child
  const rule = !held?.cron_authorized ? 'grant.parent_none'
    : job.parent_grant_id !== null && held.grant_id === job.parent_grant_id ? 'grant.inherited' : 'grant.parent_changed';
  // a child job's runs are covered by what the parent's approval listed, no more
  return { cron_authorized: rule === 'grant.inherited', grant_id: held?.grant_id ?? null, tool_scope: held?.tool_scope ?? null, rule, reason: AUTHORIZATION_RULES[rule] };
}

/** The grant a run holds, as its gate asks about it: the daemon's and `check call --job`'s are the same. */
export function runGrant(auth: Authorization, inForce: () => Promise<boolean>): RunGrant {
  return { id: auth.grant_id, inForce, covers: (tool) => scopeCovers(auth.tool_scope, tool) };
}

/** The child jobs a grant authorises: those with something left to do, and how many have finished. */
export interface CoveredChildren {
  /** An instant left to fire, or a run queued, running or waiting to retry: revoking the grant stops them. */
  readonly live: JobRow[];
  /** One-shot children done with: no instant left and no run under way (a manual `jobs run` would still run under the grant). */
  readonly finished: JobRow[];
}

/**
 * The child jobs whose runs these live grants authorise now, by grant id: the answer to "what else runs under
 * this approval tonight". Each is judged as its run would be (runAuthorization), so a child cut off (parent removed,
 * grant replaced) is left out; in a query per generation above them, not one per child.
 */
export async function childJobsCovered(db: Executor, grants: readonly GrantRow[]): Promise<Map<string, CoveredChildren>> {
  const live = grants.filter((g) => !g.revoked_at);
  const made = await liveJobsMadeUnder(db, live.map((g) => g.id));
  // with the jobs above them not made under these grants: the granted jobs themselves, or a removed one between
  const byId = await withAncestors(db, made.map((m) => m.job));
  // a child's chain leads to one of these grants' jobs or its cover fails anyway: another job's grant is not its own
  const grantOfJob = new Map(live.map((g) => [g.job_id, g]));
  const covered = new Map<string, CoveredChildren>();
  for (const { job, underway } of made) {
    const auth = inherited(job, ancestorsOf(job, byId), (id) => grantOfJob.get(id) ?? null);
    if (!auth.cron_authorized || !auth.grant_id) continue;
    const entry = covered.get(auth.grant_id) ?? { live: [], finished: [] };
    (job.next_fire_at || underway ? entry.live : entry.finished).push(job);
    covered.set(auth.grant_id, entry);
  }
  return covered;
}

/** These jobs and the jobs their chains lead through, MAX_ANCESTRY up: a query per generation, not one per job. */
export async function withAncestors(db: Executor, jobs: readonly JobRow[]): Promise<Map<string, JobRow>> {
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const asked = new Set<string>();
  for (let depth = 0; depth < MAX_ANCESTRY; depth++) {
    const missing = [...new Set([...byId.values()].map((j) => j.parent_job_id).filter((id): id is string => id !== null && !byId.has(id) && !asked.has(id)))];
    if (missing.length === 0) break;
    missing.forEach((id) => asked.add(id));
    for (const [id, j] of await jobsById(db, missing)) byId.set(id, j);
  }
  return byId;
}

/** The jobs above a job, parent first, as far as `byId` (withAncestors) holds them: jobLineage's answer, already read. */
function ancestorsOf(job: JobRow, byId: ReadonlyMap<string, JobRow>): JobRow[] {
  const ancestors: JobRow[] = [];
  for (let p = job.parent_job_id ? byId.get(job.parent_job_id) : undefined; p && ancestors.length < MAX_ANCESTRY; p = p.parent_job_id ? byId.get(p.parent_job_id) : undefined) ancestors.push(p);
  return ancestors;
}

/**
 * runAuthorization's judgement with the jobs (withAncestors) and the cronjob jobs' live grants already read, for
 * listings of many jobs: pure, and the same rules, so a listing cannot disagree with what a run would hold.
 */
export function authorizationFromRead(job: JobRow, byId: ReadonlyMap<string, JobRow>, liveGrantOf: (jobId: string) => GrantRow | null): Authorization {
  if (job.origin === 'cronjob') return authorization(job, liveGrantOf(job.id));
  if (job.removed_at) return authorization(job, null);
  return inherited(job, ancestorsOf(job, byId), liveGrantOf);
}
