import { desc, inArray, sql } from 'drizzle-orm';
import { authorizationFromRead, runAuthorization, withAncestors } from '../jobs/run-authorization.ts';
import { getApproval } from '../store/approvals.ts';
import type { Executor } from '../store/db.ts';
import { grantEndings, lastGrantEnding, liveGrant, withEnding, type Authorization } from '../store/grants.ts';
import { jobGrants, type GrantRow, type JobRow } from '../store/schema.ts';
import { redactText } from '../util/redact.ts';
import { endedGrants } from './grant-history.ts';
import type { EndedGrant } from './job-display.ts';

/**
 * The grant a job held last, when it holds none now: the EndedGrant jobs show and grants show give as last_grant,
 * and beside it the keys `jobs list --json` named before (grant_id, at, by), which scripts read.
 */
export type GrantEnded = EndedGrant & { readonly grant_id: string; readonly at: Date | null; readonly by: string | null };
const grantEnded = (e: EndedGrant): GrantEnded => ({ ...e, grant_id: e.id, at: e.ended_at, by: e.ended_by });

/** A listed job's authorisation tonight, as its run would judge it, and the grant it lost if it has none. */
export interface ListedAuthorization {
  readonly authorization: Authorization;
  readonly grant_ended: GrantEnded | null;
  /** The same ended grant under the name jobs show --json and grants show --json give it. */
  readonly last_grant: EndedGrant | null;
}

/** The rules of a cronjob job that holds no live grant: its last grant, if any, is shown ended. */
const NO_GRANT_RULES: ReadonlySet<string> = new Set(['grant.none', 'grant.revoked', 'grant.changed_outside']);

/**
 * A job's authorisation as a run of it would be judged now, with its last grant's end where it holds none
 * (grant.revoked, grant.changed_outside): for jobs show, grants show and jobs run's warning.
 */
export async function jobAuthorization(exec: Executor, job: JobRow, opts: { liveGrant?: GrantRow | null } = {}): Promise<Authorization> {
  const auth = await runAuthorization(exec, job, opts);
  return job.origin === 'cronjob' && auth.rule === 'grant.none' ? shownAuthorization(withEnding(auth, await lastGrantEnding(exec, job.id))) : auth;
}

/** Who ended the last grant and why are free text: shown redacted, as every other view of an ended grant (I11). */
function shownAuthorization(auth: Authorization): Authorization {
  const e = auth.ended_grant;
  return e ? { ...auth, ended_grant: { ...e, ended_by: e.ended_by === null ? null : redactText(e.ended_by), why: e.why === null ? null : redactText(e.why) } } : auth;
}

/**
 * Every listed job's authorisation, as runAuthorization judges it for a run, without a query per job:
 * the jobs above child jobs a query per generation (withAncestors), their grants in one.
 */
export async function listedAuthorizations(exec: Executor, jobs: readonly JobRow[]): Promise<Map<string, ListedAuthorization>> {
  const byId = await withAncestors(exec, jobs);
  const { live, ended } = await lastGrants(exec, [...byId.values()].filter((j) => j.origin === 'cronjob').map((j) => j.id));
  const judged = new Map(jobs.map((job) => [job.id, authorizationFromRead(job, byId, (id) => live.get(id) ?? null)]));
  // a job with no live grant: how its last one ended (grant.revoked, grant.changed_outside), as a run of it would say
  const endings = await grantEndings(exec, jobs.filter((j) => j.origin === 'cronjob' && judged.get(j.id)!.rule === 'grant.none').map((j) => j.id));
  const auths = new Map([...judged].map(([id, a]) => [id, shownAuthorization(withEnding(a, endings.get(id) ?? null))]));
  // a job without a live grant shows the one it lost, as jobs show does: one query for the accounts that ended them all
  const lost = new Map(jobs.flatMap((j) => {
    const g = NO_GRANT_RULES.has(auths.get(j.id)!.rule) ? ended.get(j.id) : undefined;
    return g ? [[j.id, g] as const] : [];
  }));
  const shown = await endedGrants(exec, [...lost.values()]);
  return new Map(jobs.map((job) => {
    const last = shown.get(lost.get(job.id)?.id ?? '');
    return [job.id, { authorization: auths.get(job.id)!, grant_ended: last ? grantEnded(last) : null, last_grant: last ?? null }];
  }));
}

/** Per job, its live grant and the newest ended one, in one query (at most two rows a job). */
async function lastGrants(exec: Executor, jobIds: readonly string[]): Promise<{ live: Map<string, GrantRow>; ended: Map<string, GrantRow> }> {
  const live = new Map<string, GrantRow>();
  const ended = new Map<string, GrantRow>();
  if (jobIds.length === 0) return { live, ended };
  const isLive = sql`${jobGrants.revoked_at} is null`;
  const rows = await exec.selectDistinctOn([jobGrants.job_id, isLive]).from(jobGrants).where(inArray(jobGrants.job_id, [...new Set(jobIds)]))
    .orderBy(jobGrants.job_id, isLive, desc(sql`coalesce(${jobGrants.revoked_at}, ${jobGrants.issued_at})`), desc(jobGrants.issued_at));
  for (const g of rows) (g.revoked_at ? ended : live).set(g.job_id, g);
  return { live, ended };
}

/** The AUTHORISED cell of `jobs list`: yes, or no with the rule id, and who ended the grant it had. */
export function authorisedCell(listed: ListedAuthorization | undefined): string {
  if (!listed) return '-';
  if (listed.authorization.cron_authorized) return 'yes';
  const e = listed.grant_ended;
  const why = e?.why ? `: ${e.why.length > 40 ? `${e.why.slice(0, 40)}…` : e.why}` : '';
  return `no (${listed.authorization.rule}${e ? `; grant ${e.id} ended by ${e.ended_by ?? '-'}${why}` : ''})`;
}

/**
 * What `jobs run` warns of a job whose run would not hold cron_authorized (as `check call --job` notes it): the
 * run is then judged under unattended_policy (deny: every call that is not read-only refused). Null when it would hold it.
 */
export async function notAuthorisedWarning(exec: Executor, job: JobRow): Promise<string | null> {
  const auth = await jobAuthorization(exec, job);
  if (auth.cron_authorized) return null;
  return redactText(`job ${job.id} (${job.name}) is not cron_authorized (${auth.rule}: ${auth.reason}); the run is queued all the same `
    + `and judged under permissions.unattended_policy, not a grant (what it may do: echo-agent grants show ${job.id})`);
}

/** A job's live grant as `runs show --json` gives one (with the OS account and host its answer came from), or null. */
export async function liveGrantShown(exec: Executor, jobId: string): Promise<(GrantRow & { answered_from: unknown }) | null> {
  const grant = await liveGrant(exec, jobId);
  if (!grant) return null;
  const answeredFrom = grant.approval_id ? (await getApproval(exec, grant.approval_id))?.answered_from ?? null : null;
  return { ...grant, answered_from: answeredFrom };
}
