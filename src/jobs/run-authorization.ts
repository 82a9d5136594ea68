import type { Executor } from '../store/db.ts';
import type { RunGrant } from '../approval/ports.ts';
import { AUTHORIZATION_RULES, authorization, liveGrant, scopeCovers, type Authorization } from '../store/grants.ts';
import { getJob } from '../store/jobs.ts';
import type { GrantRow, JobRow } from '../store/schema.ts';

/** Child jobs of child jobs are followed this far up, no further. */
const MAX_ANCESTRY = 4;

/**
 * cron_authorized for a run. A job made by cronjob needs its own human grant
 * (I2); a child job (task, workflow, spawn_task) has none of its own and
 * inherits its parent job's, checked at every run, so revoking the parent's
 * grant also stops the children (I5), and only the very grant its creating
 * run held (a later grant never reaches back). `liveGrant`: the job's own, already read.
 */
export async function runAuthorization(db: Executor, job: JobRow, opts: { liveGrant?: GrantRow | null } = {}, depth = 0): Promise<Authorization> {
  if (job.origin === 'cronjob') return authorization(job, opts.liveGrant !== undefined ? opts.liveGrant : await liveGrant(db, job.id));
  if (job.removed_at) return authorization(job, null);
  const parent = job.parent_job_id && depth < MAX_ANCESTRY ? await getJob(db, job.parent_job_id, { includeRemoved: true }) : null;
  const inherited = parent ? await runAuthorization(db, parent, {}, depth + 1) : null;
  // a grant issued after the child was made (or replacing the one it was made under) covers a definition, not this child
  const rule = !inherited?.cron_authorized ? 'grant.parent_none'
    : job.parent_grant_id !== null && inherited.grant_id === job.parent_grant_id ? 'grant.inherited' : 'grant.parent_changed';
  // a child job's runs are covered by what the parent's approval listed, no more
  return { cron_authorized: rule === 'grant.inherited', grant_id: inherited?.grant_id ?? null, tool_scope: inherited?.tool_scope ?? null, rule, reason: AUTHORIZATION_RULES[rule] };
}

/** The grant a run holds, as its gate asks about it: the daemon's and `check call --job`'s are the same. */
export function runGrant(auth: Authorization, inForce: () => Promise<boolean>): RunGrant {
  return { id: auth.grant_id, inForce, covers: (tool) => scopeCovers(auth.tool_scope, tool) };
}
