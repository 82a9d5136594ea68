import { and, desc, eq, gt, lt, lte, sql } from 'drizzle-orm';
import { appendInTransaction, exportAudit, GENESIS_HASH, lockAuditChain } from './audit.ts';
import type { Executor } from './db.ts';
import { newId } from './ids.ts';
import { auditArchives, auditEvents, type AuditArchiveRow, type AuditRow } from './schema.ts';

export interface Link { readonly seq: number; readonly hash: string }

/** Where the chain in the database begins: after the newest archive's last record, or at the genesis. */
export async function chainStart(exec: Executor): Promise<{ after: Link; archive: AuditArchiveRow | null }> {
  const [archive] = await exec.select().from(auditArchives).orderBy(desc(auditArchives.last_seq)).limit(1);
  return { after: archive ? { seq: archive.last_seq, hash: archive.last_hash } : { seq: 0, hash: GENESIS_HASH }, archive: archive ?? null };
}

export async function listArchives(exec: Executor): Promise<AuditArchiveRow[]> {
  return exec.select().from(auditArchives).orderBy(auditArchives.last_seq);
}

export interface ArchivePlan {
  /** The record the archived range follows. */
  readonly after: Link;
  readonly first: number;
  readonly last: number;
}

/**
 * The records stamped before `before` that are still in the database. The chain's newest record
 * always stays: the next append links to it, and a chain with no rows would start again at 1.
 */
export async function planArchive(exec: Executor, before: Date): Promise<ArchivePlan | null> {
  const { after } = await chainStart(exec);
  const res = await exec.execute(sql`
    select (select max(seq) from ${auditEvents} where ${auditEvents.at} < ${before} and ${auditEvents.seq} > ${after.seq}) as last_before,
           (select max(seq) from ${auditEvents}) as head`);
  const row = res.rows[0] as { last_before: string | null; head: string | null } | undefined;
  if (!row?.last_before || !row.head) return null;
  const last = Math.min(Number(row.last_before), Number(row.head) - 1);
  return last > after.seq ? { after, first: after.seq + 1, last } : null;
}

/** The planned records in chain order; what the caller writes to the archive file. */
export async function* plannedRecords(exec: Executor, plan: ArchivePlan): AsyncGenerator<AuditRow> {
  for await (const row of exportAudit(exec, { afterSeq: plan.after.seq })) {
    if (row.seq > plan.last) return;
    yield row;
  }
}

export class ArchiveConflict extends Error {}

export interface ArchiveRecord {
  readonly plan: ArchivePlan;
  /** The last record as written to the file: it must still be in the chain unchanged. */
  readonly lastHash: string;
  readonly before: Date;
  readonly file: string;
  readonly fileSha256: string;
  /** Who says they archive (--as), and the OS account and host they really act from. */
  readonly actor: string;
  readonly from?: { readonly os_account: string; readonly host: string };
}

/**
 * Moves the chain's start past the archived records, with an `audit.archived` record that names the
 * file and its hash, in one transaction under the chain lock. The rows themselves go afterwards
 * (deleteArchivedRecords), a batch at a time, so appends are never held up for long.
 */
export async function recordArchive(exec: Executor, a: ArchiveRecord): Promise<AuditArchiveRow> {
  return exec.transaction(async (tx) => {
    await lockAuditChain(tx);
    const { after } = await chainStart(tx);
    if (after.seq !== a.plan.after.seq) throw new ArchiveConflict(`another archive was made meanwhile (the chain now begins after record ${after.seq}); nothing was recorded: run audit archive again`);
    const [last] = await tx.select({ hash: auditEvents.hash }).from(auditEvents).where(eq(auditEvents.seq, a.plan.last));
    if (last?.hash !== a.lastHash) throw new ArchiveConflict(`record ${a.plan.last} changed while it was written to the file; nothing was recorded: run audit verify`);
    const records = a.plan.last - a.plan.first + 1;
    const [row] = await tx.insert(auditArchives).values({
      id: newId('arc'), first_seq: a.plan.first, last_seq: a.plan.last, last_hash: a.lastHash, after_seq: a.plan.after.seq, after_hash: a.plan.after.hash,
      records, before: a.before, file: a.file, file_sha256: a.fileSha256, archived_by: a.actor,
    }).returning();
    await appendInTransaction(tx, [{
      kind: 'audit.archived', actor: a.actor, outcome: 'archived', rule: 'audit.archive',
      reason: `audit records ${a.plan.first}..${a.plan.last} were moved to ${a.file}`,
      data: { archive_id: row!.id, ...archiveFacts(row!), ...(a.from ? { archived_from: a.from } : {}) },
    }]);
    return row!;
  });
}

/** What the audit.archived record says of an archive: `audit verify` compares the newest archive with it. */
export function archiveFacts(a: AuditArchiveRow): Record<string, unknown> {
  return { first_seq: a.first_seq, last_seq: a.last_seq, last_hash: a.last_hash, after_seq: a.after_seq, after_hash: a.after_hash, file: a.file, file_sha256: a.file_sha256 };
}

const DELETE_BATCH = 10_000;

/**
 * Deletes rows the newest archive covers; safe to repeat (a run that died half-way leaves some behind).
 * The floor trigger (0012) already keeps any writer from adding a record at or below them.
 */
export async function deleteArchivedRecords(exec: Executor, shouldStop: () => boolean = () => false): Promise<number> {
  const { archive } = await chainStart(exec);
  if (!archive) return 0;
  let deleted = 0;
  for (;;) {
    if (shouldStop()) return deleted;
    const [low] = await exec.select({ seq: auditEvents.seq }).from(auditEvents).where(lte(auditEvents.seq, archive.last_seq)).orderBy(auditEvents.seq).limit(1);
    if (!low) return deleted;
    const upTo = Math.min(archive.last_seq, low.seq + DELETE_BATCH - 1);
    const gone = await exec.delete(auditEvents).where(and(gt(auditEvents.seq, low.seq - 1), lt(auditEvents.seq, upTo + 1))).returning({ seq: auditEvents.seq });
    deleted += gone.length;
  }
}
