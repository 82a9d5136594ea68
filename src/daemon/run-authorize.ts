import { runAuthorization } from '../jobs/run-authorization.ts';
import type { Executor } from '../store/db.ts';
import { clearChangedOutside, lastGrantEnding, withEnding, type Authorization, type GrantEnding } from '../store/grants.ts';
import type { GrantRow, JobRow } from '../store/schema.ts';

/**
 * A run's authorisation, as the daemon settles it at the claim. A cronjob job without a live grant names its last
 * one and how it ended (grant.revoked, grant.changed_outside). A live grant its definition no longer matches was
 * changed outside echo-agent (an echo-agent change clears or replaces it in the same transaction): the run clears it
 * for good (I2), so reverting the edit does not bring it back. Safe to repeat (it runs under the outage rider).
 */
export async function authorizeRun(
  db: Executor, job: JobRow, runId: string, read: { liveGrant: GrantRow | null; lastEnding: GrantEnding | null; ancestors: readonly JobRow[] },
): Promise<Authorization> {
  const auth = await runAuthorization(db, job, { liveGrant: read.liveGrant, ancestors: read.ancestors });
  if (job.origin !== 'cronjob') return auth;
  if (auth.rule === 'grant.none') return withEnding(auth, read.lastEnding);
  if (auth.rule !== 'grant.definition_changed' || !auth.grant_id) return auth;
  const cleared = await clearChangedOutside(db, job.id, auth.grant_id, { run_id: runId });
  // cleared here, or by a replica a moment before: read again, the ending names it either way
  if (!cleared) return endedOrAsIs(db, job, auth);
  return withEnding({ ...auth, rule: 'grant.none', grant_id: null }, { grant: cleared, kind: 'grant.cleared', rule: 'grant.changed_outside' });
}

/** After a clear this run did not make: the job's authorisation read afresh, with its last grant's end. */
async function endedOrAsIs(db: Executor, job: JobRow, seen: Authorization): Promise<Authorization> {
  const now = await runAuthorization(db, job);
  return now.rule === 'grant.none' ? withEnding(now, await lastGrantEnding(db, job.id)) : now.rule === seen.rule ? seen : now;
}

/** Mid-run: the job's own live grant found not matching its definition is cleared as at the claim (one clear, one record). */
export async function clearIfChangedOutside(db: Executor, job: JobRow, auth: Authorization, runId: string): Promise<void> {
  if (job.origin === 'cronjob' && auth.rule === 'grant.definition_changed' && auth.grant_id) await clearChangedOutside(db, job.id, auth.grant_id, { run_id: runId });
}
