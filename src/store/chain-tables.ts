import { sql } from 'drizzle-orm';
import { redact } from '../util/redact.ts';
import type { Executor } from './db.ts';
import { auditEvents, type ApprovalRow, type AuditRow, type GrantRow } from './schema.ts';

/**
 * The job_grants and approvals rows are mutable; the audit chain is not. A row is only what its chained
 * record says it is: these read a grant's (or an answer's) records and name each field the row holds otherwise.
 */

/** The records that end a grant (store/grants.ts endLive). */
export const GRANT_ENDING_RECORDS: readonly string[] = ['grant.revoked', 'grant.cleared', 'grant.superseded'];

/** A grant's chained records: the one that issued it and the one that ended it, if any. */
export interface GrantRecords {
  readonly issued?: AuditRow;
  readonly ending?: AuditRow;
}

/**
 * The grant records naming `ids` (every grant's when `ids` is 'all'), in one query. With ids, `jobs` are the jobs
 * they may be filed under (the records' own, the rows'): the job index finds them without a scan of the whole log.
 */
export async function grantRecords(exec: Executor, ids: readonly string[] | 'all', jobs: readonly string[] = []): Promise<Map<string, GrantRecords>> {
  const out = new Map<string, { issued?: AuditRow; ending?: AuditRow }>();
  if (ids !== 'all' && (ids.length === 0 || jobs.length === 0)) return out;
  const list = (xs: readonly string[]) => sql.join(xs.map((x) => sql`${x}`), sql`, `);
  const named = ids === 'all' ? sql`` : sql` and ${auditEvents.job_id} in (${list(jobs)}) and ${auditEvents.data}->>'grant_id' in (${list(ids)})`;
  const rows = await exec.select().from(auditEvents).where(sql`${auditEvents.kind} in (${list(['grant.issued', ...GRANT_ENDING_RECORDS])})${named}`).orderBy(auditEvents.seq);
  for (const r of rows) {
    const id = typeof r.data.grant_id === 'string' ? r.data.grant_id : null;
    if (!id) continue;
    const entry = out.get(id) ?? out.set(id, {}).get(id)!;
    // the first of each: a grant is issued once and ended once
    if (r.kind === 'grant.issued') entry.issued ??= r;
    else entry.ending ??= r;
  }
  return out;
}

/** One field a row holds otherwise than its record: `approver (row "zed", record "erin")`. */
export interface FieldDiff {
  readonly field: string;
  readonly row: unknown;
  readonly record: unknown;
}

export const diffText = (d: readonly FieldDiff[]): string => d.map((f) => `${f.field} (row ${JSON.stringify(f.row)}, record ${JSON.stringify(f.record)})`).join(', ');

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields of a grant row its grant.issued record says otherwise; a key the record lacks (older builds) is not compared. */
export function grantDiffs(row: GrantRow, issued: AuditRow): FieldDiff[] {
  const d = issued.data;
  const out: FieldDiff[] = [];
  if (row.job_id !== issued.job_id) out.push({ field: 'job_id', row: row.job_id, record: issued.job_id });
  for (const k of ['approver', 'approval_id', 'channel', 'definition_hash', 'tool_scope'] as const) {
    if (k in d && !same(row[k], d[k])) out.push({ field: k, row: row[k], record: d[k] });
  }
  if (issued.outcome && row.cron_authorized !== (issued.outcome === 'cron_authorized')) {
    out.push({ field: 'cron_authorized', row: row.cron_authorized, record: issued.outcome === 'cron_authorized' });
  }
  return out;
}

/**
 * A row's time stamped by now() (its transaction's start) against its record's time (stamped at the append in that
 * transaction, to the millisecond): the row's may come before, by the wait for the job's lock, never after.
 */
const WRITE_SLACK_MS = 5 * 60_000;
function timeDiffers(rowAt: Date, recordAt: Date): boolean {
  const lead = recordAt.getTime() - rowAt.getTime();
  return lead < -1 || lead > WRITE_SLACK_MS;
}

/** The ending fields of a grant row its ending record says otherwise (one side live, the other ended: revoked_at). */
export function endingDiffs(row: GrantRow, ending: AuditRow | undefined): FieldDiff[] {
  if (!ending) return row.revoked_at ? [{ field: 'revoked_at', row: row.revoked_at.toISOString(), record: null }] : [];
  if (!row.revoked_at) return [{ field: 'revoked_at', row: null, record: ending.at.toISOString() }];
  const out: FieldDiff[] = [];
  if (timeDiffers(row.revoked_at, ending.at)) out.push({ field: 'revoked_at', row: row.revoked_at.toISOString(), record: ending.at.toISOString() });
  // the record holds them redacted (I11)
  if (!same(redactOrNull(row.revoked_by), ending.actor)) out.push({ field: 'revoked_by', row: row.revoked_by, record: ending.actor });
  if (!same(redactOrNull(row.revoked_why), ending.reason)) out.push({ field: 'revoked_why', row: row.revoked_why, record: ending.reason });
  return out;
}

const redactOrNull = (v: string | null) => (v === null ? null : redact(v));

/** The approval.answered records naming `ids` (every one's when 'all'), newest kept, in one query. */
export async function answerRecords(exec: Executor, ids: readonly string[] | 'all'): Promise<Map<string, AuditRow>> {
  const out = new Map<string, AuditRow>();
  if (ids !== 'all' && ids.length === 0) return out;
  const named = ids === 'all' ? sql`` : sql` and ${auditEvents.data}->>'approval_id' in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`;
  const rows = await exec.select().from(auditEvents).where(sql`${auditEvents.kind} = 'approval.answered'${named}`).orderBy(auditEvents.seq);
  for (const r of rows) if (typeof r.data.approval_id === 'string') out.set(r.data.approval_id, r);
  return out;
}

type AnsweredFields = Pick<ApprovalRow, 'state' | 'answer' | 'answered_by' | 'answered_from' | 'answered_at'>;

/** The answer fields of an approvals row its approval.answered record says otherwise. */
export function answerDiffs(row: AnsweredFields, rec: AuditRow): FieldDiff[] {
  const out: FieldDiff[] = [];
  const state = rec.outcome === 'deny' ? 'denied' : 'approved';
  if (row.state !== state) out.push({ field: 'state', row: row.state, record: state });
  if (!same(row.answer, rec.outcome)) out.push({ field: 'answer', row: row.answer, record: rec.outcome });
  if (!same(redactOrNull(row.answered_by), rec.actor)) out.push({ field: 'answered_by', row: row.answered_by, record: rec.actor });
  // the account the answer came from: data.from, or data.origin on a record before it (cli/authority.ts recordFrom)
  const recFrom = account(rec.data.from) ?? account(rec.data.origin);
  const rowFrom = account(row.answered_from);
  if (recFrom && !same(rowFrom, recFrom)) out.push({ field: 'answered_from', row: rowFrom, record: recFrom });
  if (!row.answered_at || timeDiffers(row.answered_at, rec.at)) out.push({ field: 'answered_at', row: row.answered_at?.toISOString() ?? null, record: rec.at.toISOString() });
  return out;
}

const account = (v: unknown): { os_account: string; host: string } | null => {
  const a = v as { os_account?: unknown; host?: unknown } | null | undefined;
  return a && typeof a === 'object' && typeof a.os_account === 'string' ? { os_account: a.os_account, host: typeof a.host === 'string' ? a.host : '?' } : null;
};
