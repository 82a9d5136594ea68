import type { Executor } from '../store/db.ts';
import type { RunGrant } from '../approval/ports.ts';
import { AUTHORIZATION_RULES, authorization, liveGrant, scopeCovers, type Authorization } from '../store/grants.ts';
import { jobLineage, liveJobsMadeUnder } from '../store/jobs.ts';
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
  const ancestors = opts.ancestors ?? (job.parent_job_id ? await jobLineage(db, job.parent_job_id, MAX_ANCESTRY) : []);
  return inherited(db, job, ancestors.slice(0, MAX_ANCESTRY));
}

/** A live child job's authorization: what its parent's run held, if the child was made under that very grant. */
async function inherited(db: Executor, job: JobRow, ancestors: readonly JobRow[]): Promise<Authorization> {
  const [parent, ...above] = ancestors;
  const held = !parent || parent.id !== job.parent_job_id ? null
    : parent.origin === 'cronjob' || parent.removed_at ? await runAuthorization(db, parent) : await inherited(db, parent, above);
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

/**
 * The child jobs whose runs a grant authorises now, by grant id: the answer to "what else runs under this
 * approval tonight". Each is judged as its run would be, so a child cut off (parent removed, grant replaced) is left out.
 */
export async function childJobsCovered(db: Executor, grantIds: readonly string[]): Promise<Map<string, JobRow[]>> {
  const covered = new Map<string, JobRow[]>();
  for (const child of await liveJobsMadeUnder(db, grantIds)) {
    const auth = await runAuthorization(db, child);
    if (!auth.cron_authorized || !auth.grant_id) continue;
    covered.set(auth.grant_id, [...(covered.get(auth.grant_id) ?? []), child]);
  }
  return covered;
}
