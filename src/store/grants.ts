import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { appendAudit, callColumns, type CallIds } from './audit.ts';
import type { Executor } from './db.ts';
import { definitionHash } from './definition-hash.ts';
import { newId } from './ids.ts';
import { rowFrom } from './row-mapping.ts';
import { jobGrants, jobs, type GrantRow, type JobRow } from './schema.ts';
import type { GrantPolicyRule } from '../jobs/grant-policy.ts';

/** A grant.issued record's outcome: whether the grant authorises unattended runs. */
export const GRANT_ISSUED_OUTCOMES = ['cron_authorized', 'not_authorized'] as const;
type GrantIssuedOutcome = (typeof GRANT_ISSUED_OUTCOMES)[number];

export interface IssueGrantInput {
  readonly job_id: string;
  /** false records who approved what without authorising unattended writes (auto approvals). */
  readonly cron_authorized?: boolean;
  readonly approval_id: string | null;
  readonly approver: string | null;
  readonly channel: string | null;
  /** Defaults to the database clock, the one every replica and the audit log agree on. */
  readonly approved_at?: Date | null;
  /** The definition the human saw; defaults to the job's current one. */
  readonly definition_hash?: string;
  /** The tools the human was shown as usable by the job's runs; null (the default) covers every tool offered. */
  readonly tool_scope?: readonly string[] | null;
  /** Where tool_scope was read: the stored approval request, or this process's configuration. For the audit record. */
  readonly tool_scope_from?: 'approval_request' | 'issuing_process';
  readonly actor?: string;
  /** The cronjob call the approval answered. */
  readonly call?: CallIds;
}

/** Issues the job's grant, superseding a live one. Serialised per job by its row lock. */
export async function issueGrant(exec: Executor, g: IssueGrantInput): Promise<GrantRow> {
  const authorized = g.cron_authorized ?? true;
  if (authorized && (!g.approval_id || !g.approver)) {
    throw new Error('a cron_authorized grant needs the human approval (approval_id and approver) behind it');
  }
  return exec.transaction(async (tx) => {
    const job = await lockJob(tx, g.job_id);
    const id = newId('grt');
    const actor = g.actor ?? g.approver ?? 'system';
    await endLive(tx, g.job_id, { by: actor, why: `superseded by ${id}`, ...(g.call ? { call: g.call } : {}) }, 'grant.superseded');
    const [grant] = await tx.insert(jobGrants).values({
      id, job_id: g.job_id, cron_authorized: authorized, approval_id: g.approval_id, approver: g.approver,
      channel: g.channel, approved_at: g.approved_at === undefined ? sql`now()` : g.approved_at, definition_hash: g.definition_hash ?? definitionHash(job),
      tool_scope: g.tool_scope ? [...g.tool_scope] : null,
    }).returning();
    await appendAudit(tx, {
      // the grant policy's rule (jobs/grant-policy.ts), as grant.not_issued names its own: a human approval, or a policy's (no authority)
      kind: 'grant.issued', actor, job_id: g.job_id, ...callColumns(g.call), rule: (authorized ? 'grant.human_approved' : 'grant.not_human') satisfies GrantPolicyRule,
      outcome: (authorized ? 'cron_authorized' : 'not_authorized') satisfies GrantIssuedOutcome,
      reason: authorized ? `Approved by ${g.approver} on ${g.channel ?? 'an unknown channel'}.` : 'Recorded without cron authorisation (no human approval).',
      data: { grant_id: id, approval_id: g.approval_id, approver: g.approver, channel: g.channel, definition_hash: grant!.definition_hash, definition_matches: grant!.definition_hash === definitionHash(job), tool_scope: grant!.tool_scope, ...(g.tool_scope_from ? { tool_scope_from: g.tool_scope_from } : {}) },
    });
    return grant!;
  });
}

/** A definition changed without a human (I2), or the job went away: the live grant ends. */
export async function clearGrant(exec: Executor, jobId: string, by: GrantEnder): Promise<GrantRow | null> {
  return exec.transaction(async (tx) => {
    await lockJob(tx, jobId);
    return endLive(tx, jobId, by, 'grant.cleared');
  });
}

/** Who ends a grant whose definition was changed outside echo-agent: the daemon, on no person's word. */
export const CHANGED_OUTSIDE_ACTOR = 'daemon';

/**
 * The job's definition no longer matches its live human grant, and no echo-agent change made it so (one would have
 * cleared or replaced the grant in the same transaction): changed outside echo-agent (raw SQL). The first run to see
 * it clears the grant for good (I2), so reverting the SQL does not bring it back. Under the job's row lock, and only
 * while that very grant is live and still mismatched: replicas racing here make one clear and one record. Null: not ours to clear.
 */
export async function clearChangedOutside(exec: Executor, jobId: string, grantId: string, opts: { run_id?: string } = {}): Promise<GrantRow | null> {
  return exec.transaction(async (tx) => {
    const job = await lockJob(tx, jobId);
    const grant = await liveGrant(tx, jobId);
    const now = definitionHash(job);
    if (!grant || grant.id !== grantId || !grant.cron_authorized || job.removed_at || grant.definition_hash === now) return null;
    const stored = job.definition_hash === now ? '' : `; the job row's stored hash ${job.definition_hash.slice(0, 12)} was left behind`;
    const why = `definition changed outside echo-agent: the job's definition (hash ${now.slice(0, 12)}) is not the one approved (hash ${grant.definition_hash.slice(0, 12)}) `
      + `and no echo-agent change made it so${stored}; cleared for good, only a new approval restores cron authorisation`;
    return endLive(tx, jobId, {
      by: CHANGED_OUTSIDE_ACTOR, why, rule: 'grant.changed_outside', ...(opts.run_id ? { run_id: opts.run_id } : {}),
      data: { definition_hash_approved: grant.definition_hash, definition_hash_now: now, definition_hash_stored: job.definition_hash },
    }, 'grant.cleared', grantId);
  });
}

/** A grant taken back: its row, which keeps the cron_authorized it was issued with, and that it is no longer in force. */
export type RevokedGrant = GrantRow & { readonly in_force: false };

/** An admin takes a grant back (`grants revoke --why`). */
export async function revokeGrant(exec: Executor, r: { job_id?: string; grant_id?: string; by: string; why: string }): Promise<RevokedGrant | null> {
  if (!r.why.trim()) throw new Error('revoking a grant needs a reason');
  return exec.transaction(async (tx) => {
    let jobId = r.job_id;
    if (r.grant_id) {
      const [g] = await tx.select().from(jobGrants).where(eq(jobGrants.id, r.grant_id));
      if (!g || g.revoked_at) return null;
      jobId = g.job_id;
    }
    if (!jobId) throw new Error('revokeGrant needs job_id or grant_id');
    await lockJob(tx, jobId);
    const ended = await endLive(tx, jobId, r, 'grant.revoked', r.grant_id);
    return ended && { ...ended, in_force: false };
  });
}

/** Who ends a grant and why, and the tool call that ended it (none from the command line). */
export interface GrantEnder {
  readonly by: string;
  readonly why: string;
  readonly call?: CallIds;
  /** The ending record's rule (a clear the daemon made: grant.changed_outside), the run that saw it, and more data. */
  readonly rule?: AuthorizationRule;
  readonly run_id?: string;
  readonly data?: Record<string, unknown>;
}

async function endLive(tx: Executor, jobId: string, { by, why, call, rule, run_id, data }: GrantEnder, kind: string, grantId?: string): Promise<GrantRow | null> {
  const [ended] = await tx.update(jobGrants)
    .set({ revoked_at: sql`now()`, revoked_by: by, revoked_why: why })
    .where(and(eq(jobGrants.job_id, jobId), isNull(jobGrants.revoked_at), grantId ? eq(jobGrants.id, grantId) : undefined))
    .returning();
  if (!ended) return null;
  await appendAudit(tx, {
    kind, actor: by, job_id: jobId, ...callColumns(call), reason: why, ...(rule ? { rule } : {}), ...(run_id ? { run_id } : {}),
    // cron_authorized is what the grant was issued with; in_force says it authorises nothing from now on
    data: { grant_id: ended.id, approval_id: ended.approval_id, approver: ended.approver, cron_authorized: ended.cron_authorized, in_force: false, ...data },
  });
  return ended;
}

async function lockJob(tx: Executor, jobId: string): Promise<JobRow> {
  const [job] = await tx.select().from(jobs).where(eq(jobs.id, jobId)).for('update');
  if (!job) throw new Error(`no job ${jobId}`);
  return job;
}

export async function liveGrant(exec: Executor, jobId: string): Promise<GrantRow | null> {
  const [g] = await exec.select().from(jobGrants).where(and(eq(jobGrants.job_id, jobId), isNull(jobGrants.revoked_at)));
  return g ?? null;
}

export async function getGrant(exec: Executor, id: string): Promise<GrantRow | null> {
  const [g] = await exec.select().from(jobGrants).where(eq(jobGrants.id, id));
  return g ?? null;
}

/** Newest first; live grants only unless includeRevoked. */
export async function listGrants(exec: Executor, f: { job_id?: string; includeRevoked?: boolean; limit?: number } = {}): Promise<GrantRow[]> {
  return exec.select().from(jobGrants)
    .where(and(f.job_id ? eq(jobGrants.job_id, f.job_id) : undefined, f.includeRevoked ? undefined : isNull(jobGrants.revoked_at)))
    .orderBy(desc(jobGrants.issued_at)).limit(f.limit ?? 1000);
}

/** Why a run does or does not get cron_authorized; each outcome has a stable rule id. */
export const AUTHORIZATION_RULES = {
  'grant.valid': 'A human approved this exact job definition and the grant is live.',
  'grant.none': 'The job has no live grant (never approved by a human, or cleared by a definition change nobody approved).',
  'grant.revoked': 'The job\'s last grant was revoked by an admin (grants revoke); only a new human approval authorises its runs again.',
  'grant.changed_outside': 'The job\'s definition was changed outside echo-agent (e.g. with SQL) after its human approval; the first run to see it cleared the grant for good (I2), and only a new approval restores it.',
  'grant.not_authorized': 'The live grant records an approval that was not a human approval.',
  'grant.definition_changed': 'The job definition changed after the human approval; the grant no longer covers it.',
  'grant.job_removed': 'The job was removed.',
  'grant.inherited': 'A child job (task, workflow, spawn_task) runs under the live human grant of the job whose run created it.',
  'grant.parent_none': 'A child job is cron_authorized only while the job whose run created it is; that job has no valid grant, or there is none.',
  'grant.parent_changed': 'A child job inherits only the grant its creating run held; the parent job\'s live grant is a different one, or the creating run held none.',
} as const;

export type AuthorizationRule = keyof typeof AUTHORIZATION_RULES;

export interface Authorization {
  readonly cron_authorized: boolean;
  readonly grant_id: string | null;
  /** The tools the grant covers, from its approval; null covers every tool offered (a grant from before migration 0008). */
  readonly tool_scope: readonly string[] | null;
  readonly rule: AuthorizationRule;
  readonly reason: string;
  /** The job holds no live grant: its last one, who ended it, when and why (grant.revoked, grant.changed_outside, grant.none). */
  readonly ended_grant?: EndedGrantRef;
}

/** A job's last grant, ended: enough to say "revoked 130 ms before the run by dave: incident 42". Free text is stored as given. */
export interface EndedGrantRef {
  readonly id: string;
  /** The kind of its ending record (grant.revoked, grant.cleared); null when that record is not in the log (archived). */
  readonly ending: string | null;
  readonly ending_rule: string | null;
  readonly ended_at: Date | null;
  readonly ended_by: string | null;
  readonly why: string | null;
}

/** A job's newest grant when it is ended, with the kind and rule of the record that ended it. */
export interface GrantEnding {
  readonly grant: GrantRow;
  readonly kind: string | null;
  readonly rule: string | null;
}

/**
 * SQL: the newest grant of job `job` (an SQL expression) as {grant, kind, rule}, its ending record's kind and rule beside it,
 * or null. The ending record is written in the transaction that set revoked_at, so it is looked for from that instant on.
 */
export const lastGrantEndingSql = (job: string) => `(
  select jsonb_build_object('grant', to_jsonb(lg.*), 'kind', e.kind, 'rule', e.rule) from job_grants lg
  left join lateral (select a.kind, a.rule from audit_events a where a.job_id = lg.job_id and a.kind in ('grant.revoked', 'grant.cleared')
    and a.data->>'grant_id' = lg.id and a.at >= lg.revoked_at - interval '1 second' order by a.at, a.seq limit 1) e on true
  where lg.job_id = ${job} order by lg.issued_at desc limit 1)`;

/** lastGrantEndingSql's answer as a GrantEnding; null when the newest grant is live or there is none. */
export function grantEndingFrom(raw: { grant: Record<string, unknown>; kind: string | null; rule: string | null } | null): GrantEnding | null {
  if (!raw) return null;
  const grant = rowFrom(jobGrants, raw.grant);
  return grant.revoked_at ? { grant, kind: raw.kind, rule: raw.rule } : null;
}

/** The job's newest grant if it has ended (none is live), and how. */
export async function lastGrantEnding(exec: Executor, jobId: string): Promise<GrantEnding | null> {
  const { rows } = await exec.execute<{ e: Parameters<typeof grantEndingFrom>[0] }>(sql`select ${sql.raw(lastGrantEndingSql('j.id'))} as e from jobs j where j.id = ${jobId}`);
  return grantEndingFrom(rows[0]?.e ?? null);
}

/** lastGrantEnding for many jobs, in one query: by job id, the jobs whose newest grant has ended. */
export async function grantEndings(exec: Executor, jobIds: readonly string[]): Promise<Map<string, GrantEnding>> {
  const ids = [...new Set(jobIds)];
  if (ids.length === 0) return new Map();
  const { rows } = await exec.execute<{ id: string; e: Parameters<typeof grantEndingFrom>[0] }>(
    sql`select j.id, ${sql.raw(lastGrantEndingSql('j.id'))} as e from jobs j where j.id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`);
  return new Map(rows.flatMap((r) => { const e = grantEndingFrom(r.e); return e ? [[r.id, e] as const] : []; }));
}

/**
 * A cronjob job's authorisation once its last grant's end is known: grant.none becomes grant.revoked (an admin
 * revoked it) or grant.changed_outside (the daemon cleared it for a definition changed outside echo-agent), and
 * names that grant. Pure; any other judgement is returned as it is.
 */
export function withEnding(auth: Authorization, ending: GrantEnding | null): Authorization {
  if (auth.rule !== 'grant.none' || !ending) return auth;
  const rule: AuthorizationRule = ending.kind === 'grant.revoked' ? 'grant.revoked' : ending.rule === 'grant.changed_outside' ? 'grant.changed_outside' : 'grant.none';
  const g = ending.grant;
  return {
    ...auth, rule, reason: AUTHORIZATION_RULES[rule],
    ended_grant: { id: g.id, ending: ending.kind, ending_rule: ending.rule, ended_at: g.revoked_at, ended_by: g.revoked_by, why: g.revoked_why },
  };
}

/** Whether a grant's approval covered this tool (see Authorization.tool_scope). */
export function scopeCovers(scope: readonly string[] | null, tool: string): boolean {
  return scope === null || scope.includes(tool);
}

type DefinedJob = Pick<JobRow, 'payload' | 'tools' | 'schedule' | 'timezone' | 'delivery' | 'removed_at'>;

/**
 * Pure: cron_authorized only from a live human grant for the job's current definition (I2): the hash of
 * what the row holds now, not its stored definition_hash column, which a raw-SQL edit would leave behind.
 */
export function authorization(job: DefinedJob, grant: GrantRow | null): Authorization {
  const rule: AuthorizationRule = job.removed_at ? 'grant.job_removed'
    : !grant || grant.revoked_at ? 'grant.none'
      : !grant.cron_authorized ? 'grant.not_authorized'
        : grant.definition_hash !== definitionHash(job) ? 'grant.definition_changed'
          : 'grant.valid';
  return { cron_authorized: rule === 'grant.valid', grant_id: grant?.id ?? null, tool_scope: grant?.tool_scope ?? null, rule, reason: AUTHORIZATION_RULES[rule] };
}

export async function authorizationFor(exec: Executor, jobId: string): Promise<Authorization | null> {
  const [job] = await exec.select().from(jobs).where(eq(jobs.id, jobId));
  if (!job) return null;
  const auth = authorization(job, await liveGrant(exec, jobId));
  return auth.rule === 'grant.none' ? withEnding(auth, await lastGrantEnding(exec, jobId)) : auth;
}
