import { inArray, or, sql } from 'drizzle-orm';
import { chainStart } from './audit-archive.ts';
import { answerDiffs, answerRecords, diffText, endingDiffs, grantDiffs, grantRecords } from './chain-tables.ts';
import type { Executor } from './db.ts';
import { approvals, auditEvents, jobGrants } from './schema.ts';

/**
 * `audit verify` checks the chain; these check the mutable tables against it. A row changed with plain SQL
 * (an approver renamed, a pending request marked approved) leaves the chain intact, so it needs checks of its own.
 * Each finding names its rule, its table, row and fields.
 */
export const TABLE_CHECK_RULES = {
  'tables.grant.no_record': 'A job_grants row has no grant.issued record in the chain: it was written outside echo-agent.',
  'tables.grant.differs': 'A job_grants row holds another approver, approval, channel, definition hash, tool scope or authorisation than its grant.issued record.',
  'tables.grant.ending_differs': 'A job_grants row is revoked (or live) otherwise than its grant.revoked, grant.cleared or grant.superseded record says: revoked_at, revoked_by or revoked_why.',
  'tables.grant.row_missing': 'A grant.issued record names a grant the job_grants table no longer holds.',
  'tables.approval.no_record': 'An approvals row is approved or denied, but no approval.answered record says so: it was answered outside echo-agent.',
  'tables.approval.differs': 'An approvals row holds another state, answer, answerer, account or time than its approval.answered record.',
} as const;

export type TableRule = keyof typeof TABLE_CHECK_RULES;

export interface TableFinding {
  readonly rule: TableRule;
  readonly table: 'job_grants' | 'approvals';
  /** The row's id (grt_…, apr_…). */
  readonly id: string;
  /** The fields that differ; empty when the row or record is missing altogether. */
  readonly fields: readonly string[];
  /** The record the row was checked against, when there is one. */
  readonly record_seq: number | null;
  readonly detail: string;
}

export interface TablesVerdict {
  readonly ok: boolean;
  /** Rows compared with their records. */
  readonly checked: { readonly job_grants: number; readonly approvals: number };
  /** Rows from before the newest archive whose record is in its file, not in the database: not checked. */
  readonly archived: { readonly job_grants: number; readonly approvals: number };
  readonly findings: readonly TableFinding[];
}

/** One query per table and one per record kind; run it in the snapshot the chain is checked in. */
export async function verifyTables(exec: Executor): Promise<TablesVerdict> {
  // records stamped before the newest archive's cut may be in its file: a row that old with no record is not a finding
  const { archive } = await chainStart(exec);
  // (an archive's cut may lie ahead of when it ran: nothing written after it ran went into its file)
  const cut = archive ? Math.min(archive.before.getTime(), archive.archived_at.getTime()) : null;
  const archivedBefore = (t: Date | null) => cut !== null && t !== null && t.getTime() < cut;
  const findings: TableFinding[] = [];
  const archived = { job_grants: 0, approvals: 0 };
  const checked = { job_grants: 0, approvals: 0 };

  const [grants, records] = await Promise.all([exec.select().from(jobGrants), grantRecords(exec, 'all')]);
  for (const g of grants) {
    const rec = records.get(g.id);
    const what = `job_grants row ${g.id} (job ${g.job_id})`;
    let skipped = false;
    if (rec?.issued) {
      const d = grantDiffs(g, rec.issued);
      if (d.length) findings.push({ rule: 'tables.grant.differs', table: 'job_grants', id: g.id, fields: d.map((f) => f.field), record_seq: rec.issued.seq, detail: `${what} differs from its grant.issued record ${rec.issued.seq}: ${diffText(d)}` });
    } else if (archivedBefore(g.issued_at)) skipped = true;
    else findings.push({ rule: 'tables.grant.no_record', table: 'job_grants', id: g.id, fields: [], record_seq: null, detail: `${what}, approver ${JSON.stringify(g.approver)}, has no grant.issued record` });
    if (!rec?.ending && g.revoked_at && archivedBefore(g.revoked_at)) skipped = true;
    else {
      const e = endingDiffs(g, rec?.ending);
      const against = rec?.ending ? `its ${rec.ending.kind} record ${rec.ending.seq}` : 'the chain (no grant.revoked, grant.cleared or grant.superseded record names it)';
      if (e.length) findings.push({ rule: 'tables.grant.ending_differs', table: 'job_grants', id: g.id, fields: e.map((f) => f.field), record_seq: rec?.ending?.seq ?? null, detail: `${what} differs from ${against}: ${diffText(e)}` });
    }
    if (skipped) archived.job_grants++;
    else checked.job_grants++;
  }
  const held = new Set(grants.map((g) => g.id));
  for (const [id, rec] of records) {
    if (rec.issued && !held.has(id)) findings.push({ rule: 'tables.grant.row_missing', table: 'job_grants', id, fields: [], record_seq: rec.issued.seq, detail: `grant.issued record ${rec.issued.seq} names grant ${id} (job ${rec.issued.job_id ?? '-'}), which job_grants does not hold` });
  }

  // answered rows, and every row an approval.answered record names (one the table holds as still pending)
  const answeredIds = sql`select ${auditEvents.data}->>'approval_id' from ${auditEvents} where ${auditEvents.kind} = 'approval.answered'`;
  const [rows, answers] = await Promise.all([
    exec.select({ id: approvals.id, state: approvals.state, answer: approvals.answer, answered_by: approvals.answered_by, answered_from: approvals.answered_from, answered_at: approvals.answered_at })
      .from(approvals).where(or(inArray(approvals.state, ['approved', 'denied']), sql`${approvals.id} in (${answeredIds})`)),
    answerRecords(exec, 'all'),
  ]);
  for (const a of rows) {
    const rec = answers.get(a.id);
    const what = `approvals row ${a.id}`;
    if (rec) {
      const d = answerDiffs(a, rec);
      if (d.length) findings.push({ rule: 'tables.approval.differs', table: 'approvals', id: a.id, fields: d.map((f) => f.field), record_seq: rec.seq, detail: `${what} differs from its approval.answered record ${rec.seq}: ${diffText(d)}` });
    } else if (archivedBefore(a.answered_at)) {
      archived.approvals++;
      continue;
    } else {
      findings.push({ rule: 'tables.approval.no_record', table: 'approvals', id: a.id, fields: [], record_seq: null, detail: `${what} is ${a.state} (${a.answer ?? 'no answer'} by ${a.answered_by ?? '-'}), but no approval.answered record says so` });
    }
    checked.approvals++;
  }
  return { ok: findings.length === 0, checked, archived, findings };
}
