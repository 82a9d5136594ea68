import { and, asc, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import { definitionDifferences } from '../jobs/definition-diff.ts';
import type { Executor } from '../store/db.ts';
import { definitionHash } from '../store/definition-hash.ts';
import { definitionOf } from '../store/jobs.ts';
import { approvals, auditEvents, type ApprovalRow, type AuditRow, type GrantRow, type JobRow } from '../store/schema.ts';
import { redactText } from '../util/redact.ts';
import { accountOf, GRANT_ENDING_KINDS, recordFrom, type Origin } from './authority.ts';
import type { EndedGrant } from './job-display.ts';

/**
 * What the audit log says about a grant beyond its row: who asked for it, the changes made under it and who
 * approved each, what the human approved when the job no longer matches it, and who ended it from where.
 * Read-only, a query per question (not per grant) where `grants list` asks about many.
 */

export type { Origin } from './authority.ts';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const redactOrNull = (text: string | null): string | null => (text === null ? null : redactText(text));

/** Who asked for the approval behind a grant, and from where; null fields where the request is not in the database. */
export interface Request {
  readonly requested_by: string | null;
  readonly requested_from: Origin | null;
  readonly answered_from: Origin | null;
}

/** The approval requests behind these grants, by approval id, in one query. */
export async function requestsOf(exec: Executor, grants: readonly Pick<GrantRow, 'approval_id'>[]): Promise<Map<string, Request>> {
  const ids = [...new Set(grants.map((g) => g.approval_id).filter((id): id is string => id !== null))];
  const rows: ApprovalRow[] = ids.length ? await exec.select().from(approvals).where(inArray(approvals.id, ids)) : [];
  return new Map(rows.map((a) => [a.id, { requested_by: str(a.user_id), requested_from: accountOf(a.asked_from), answered_from: accountOf(a.answered_from) }]));
}

/** The OS account and host each ended grant's ending record names (a CLI revoke records them), by grant id, in one query. */
export async function endingOrigins(exec: Executor, grants: readonly GrantRow[]): Promise<Map<string, Origin | null>> {
  const ended = grants.filter((g) => g.revoked_at);
  if (ended.length === 0) return new Map();
  const wanted = new Set(ended.map((g) => g.id));
  const rows = await exec.select({ data: auditEvents.data }).from(auditEvents).where(and(
    inArray(auditEvents.job_id, [...new Set(ended.map((g) => g.job_id))]), inArray(auditEvents.kind, [...GRANT_ENDING_KINDS]),
  )).orderBy(asc(auditEvents.seq));
  const out = new Map<string, Origin | null>();
  for (const { data } of rows) {
    const id = str(data.grant_id);
    // a record written before data.from names the account as data.origin
    if (id && wanted.has(id)) out.set(id, recordFrom(data));
  }
  return out;
}

/**
 * Ended grants as jobs list, jobs show and grants show give them, by grant id: who approved each, and who ended it,
 * when, from which account and why. The ender's name and reason are free text, shown redacted (I11). One query for all.
 */
export async function endedGrants(exec: Executor, grants: readonly GrantRow[]): Promise<Map<string, EndedGrant>> {
  const ending = await endingOrigins(exec, grants);
  return new Map(grants.filter((g) => g.revoked_at).map((g) => [g.id, {
    id: g.id, approver: g.approver, approved_at: g.approved_at, ended_at: g.revoked_at, ended_by: redactOrNull(g.revoked_by),
    ended_from: ending.get(g.id) ?? null, why: redactOrNull(g.revoked_why),
  }]));
}

/** A recorded change of the job, and the human approval that let it through (on the gate decision of its call). */
export interface RecordedChange {
  readonly seq: number;
  readonly at: Date;
  /** Who made it: the record's actor; through the CLI, who asked for it. */
  readonly by: string | null;
  readonly requested_by: string | null;
  readonly fields: string[];
  readonly definition_changed: boolean;
  /** The job's definition hash after it. */
  readonly definition_hash: string | null;
  /** Null when no approval is on the audit trail of its call (a change written to the store directly has none). */
  readonly approved_by: string | null;
  readonly approval_id: string | null;
  readonly approval_rule: string | null;
  readonly answered_from: Origin | null;
  readonly trace_id: string | null;
}

/** At most this many changes since a grant are read: the newest are the ones shown. */
const MAX_CHANGES = 20;

/**
 * The job's recorded changes since its grant was issued, oldest first, each with who approved it. "Since": after the
 * grant's own record, not its approval, as the approved change behind a grant is recorded between the two.
 */
export async function changesSince(exec: Executor, jobId: string, grant: GrantRow): Promise<RecordedChange[]> {
  const [issued] = await exec.select({ seq: auditEvents.seq }).from(auditEvents)
    .where(and(eq(auditEvents.job_id, jobId), eq(auditEvents.kind, 'grant.issued'), sql`${auditEvents.data}->>'grant_id' = ${grant.id}`)).limit(1);
  const updates = (await exec.select().from(auditEvents).where(and(
    eq(auditEvents.job_id, jobId), eq(auditEvents.kind, 'job.updated'), issued ? gt(auditEvents.seq, issued.seq) : gt(auditEvents.at, grant.issued_at),
  )).orderBy(desc(auditEvents.seq)).limit(MAX_CHANGES)).reverse();
  const approvalsOf = await approvalsOnTrace(exec, jobId, updates);
  return updates.map((u) => {
    const d = u.data as { changed?: unknown; definition_changed?: unknown; definition_hash?: unknown };
    const a = approvalsOf.get(u.seq);
    return {
      seq: u.seq, at: u.at, by: u.actor, requested_by: u.actor, fields: Array.isArray(d.changed) ? d.changed.map(String) : [], definition_changed: d.definition_changed === true, definition_hash: str(d.definition_hash),
      approved_by: a?.approved_by ?? null, approval_id: a?.approval_id ?? null, approval_rule: a?.rule ?? null, answered_from: a?.answered_from ?? null, trace_id: u.trace_id,
    };
  });
}

/**
 * The approval each change's call went through, by the change's seq: the last allowing `cronjob` decision of its
 * trace before it, and that approval's answer (which records the account it came from). One query for all.
 */
async function approvalsOnTrace(exec: Executor, jobId: string, updates: readonly AuditRow[]): Promise<Map<number, { approved_by: string | null; approval_id: string | null; rule: string | null; answered_from: Origin | null }>> {
  const traces = [...new Set(updates.map((u) => u.trace_id).filter((t): t is string => t !== null))];
  if (traces.length === 0) return new Map();
  const rows = await exec.select().from(auditEvents).where(and(
    eq(auditEvents.job_id, jobId), inArray(auditEvents.trace_id, traces), inArray(auditEvents.kind, ['gate.decision', 'approval.answered']),
  )).orderBy(asc(auditEvents.seq));
  const out = new Map<number, { approved_by: string | null; approval_id: string | null; rule: string | null; answered_from: Origin | null }>();
  for (const u of updates) {
    const decision = rows.filter((r) => r.kind === 'gate.decision' && r.trace_id === u.trace_id && r.seq < u.seq && r.outcome === 'allow' && r.data.tool === 'cronjob').at(-1);
    if (!decision) continue;
    const approvalId = str(decision.data.approval_id);
    const answer = approvalId ? rows.find((r) => r.kind === 'approval.answered' && r.data.approval_id === approvalId) : undefined;
    out.set(u.seq, { approved_by: str(decision.data.approver) ?? answer?.actor ?? null, approval_id: approvalId, rule: decision.rule, answered_from: recordFrom(answer?.data) });
  }
  return out;
}

/** Why a live grant's definition no longer matches the job's, as far as the audit log tells. */
export interface DefinitionChange {
  /** The recorded change that made the definition what it is now; null: changed outside echo-agent, no record of it. */
  readonly recorded_by: RecordedChange | null;
  /** Where the job differs from the definition the human approved; null when that definition is not in the audit log. */
  readonly fields: string[] | null;
}

/**
 * Compares the job with the definition its grant's approver saw (the job.created or job.updated record holding
 * that definition's hash), and looks for the recorded change that made it what it is now among `changes`.
 */
export async function definitionChange(exec: Executor, job: JobRow, grant: GrantRow, changes: readonly RecordedChange[]): Promise<DefinitionChange> {
  const [approved] = await exec.select({ data: auditEvents.data }).from(auditEvents).where(and(
    eq(auditEvents.job_id, job.id), inArray(auditEvents.kind, ['job.created', 'job.updated']), sql`${auditEvents.data}->>'definition_hash' = ${grant.definition_hash}`,
    sql`${auditEvents.data} ? 'definition'`,
  )).orderBy(desc(auditEvents.seq)).limit(1);
  const definition = approved?.data.definition;
  const fields = definition && typeof definition === 'object' ? definitionDifferences(definition as Record<string, unknown>, definitionOf(job)) : null;
  // a recorded definition change ends the grant (I2), so one that explains a live grant's mismatch is rare; a change
  // outside the definition (a timeout, a name) never does
  const now = definitionHash(job);
  return { recorded_by: changes.findLast((c) => c.definition_changed && c.definition_hash === now) ?? null, fields };
}
