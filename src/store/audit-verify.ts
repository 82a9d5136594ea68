import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { archiveFacts, chainStart } from './audit-archive.ts';
import { inSnapshot, type Executor } from './db.ts';
import { auditHash } from './audit.ts';
import { pgColumn } from './pg-array.ts';
import { auditArchives, auditEvents, type AuditArchiveRow, type AuditRow } from './schema.ts';
import { verifyTables, type TablesVerdict } from './audit-verify-tables.ts';

export type AuditProblem = 'edited' | 'removed' | 'reordered';

export interface AuditVerdict {
  readonly ok: boolean;
  /** Records read before the verdict. */
  readonly checked: number;
  /** The last good record: an operator can compare it with a copy kept elsewhere (a truncated tail leaves no trace in the chain). */
  readonly head: { seq: number; hash: string };
  readonly firstBad?: { seq: number; problem: AuditProblem; detail: string };
  /** The first record checked: 1, or the one after the newest archive. */
  readonly from: number;
  readonly note?: string;
  /** With `tables`: the job_grants and approvals rows against their records; `ok` above is the chain's alone. */
  readonly tables?: TablesVerdict;
}

type Link = { readonly seq: number; readonly hash: string };

/**
 * The newest archive must be the one its audit.archived record names: a row added or changed to
 * hide records removed from the start of the chain has no such record after it.
 */
async function unrecordedArchive(exec: Executor, archive: AuditArchiveRow): Promise<AuditVerdict['firstBad']> {
  const said = await exec.select({ data: auditEvents.data }).from(auditEvents)
    .where(and(eq(auditEvents.kind, 'audit.archived'), gt(auditEvents.seq, archive.last_seq), sql`${auditEvents.data}->>'archive_id' = ${archive.id}`)).limit(1);
  const facts = archiveFacts(archive);
  if (said[0] && Object.entries(facts).every(([k, v]) => said[0]!.data[k] === v)) return undefined;
  return { seq: archive.after_seq + 1, problem: 'removed', detail: `the chain begins after record ${archive.last_seq} by archive ${archive.id}, but no audit.archived record after it says so${said[0] ? ' with the same range, hash and file' : ''}: records before ${archive.last_seq + 1} may have been removed` };
}

/**
 * Walks the chain in seq order. Each record must hash to its stored hash (seq and
 * time included), point at the previous record's hash, and follow it with seq + 1.
 * At the first break it works out what happened from the links that survive.
 */
export async function verifyAudit(exec: Executor, opts: { batchSize?: number; expectHead?: Link; tables?: boolean } = {}): Promise<AuditVerdict> {
  // an archive deleting rows between two batches would otherwise read as records removed; the tables are read
  // in the same snapshot, so a grant issued meanwhile is not a row without its record
  return inSnapshot(exec, async (tx) => {
    const chain = await verifyChain(tx, opts);
    return opts.tables ? { ...chain, tables: await verifyTables(tx) } : chain;
  });
}

async function verifyChain(exec: Executor, opts: { batchSize?: number; expectHead?: Link }): Promise<AuditVerdict> {
  const batchSize = opts.batchSize ?? 1000;
  // archived records are in their files; the chain here begins after the newest archive
  const start = await chainStart(exec);
  let prev: Link = start.after;
  const archiveBad = start.archive ? await unrecordedArchive(exec, start.archive) : undefined;
  if (archiveBad) return { ok: false, checked: 0, head: prev, firstBad: archiveBad, from: start.after.seq + 1 };
  let checked = 0;
  for (;;) {
    const batch = await exec.select().from(auditEvents).where(gt(auditEvents.seq, prev.seq)).orderBy(asc(auditEvents.seq)).limit(batchSize);
    const inexact = await beyondTheHash(exec, batch);
    for (const row of batch) {
      checked++;
      if (inexact.has(row.seq) && row.prev_hash === prev.hash && row.seq === prev.seq + 1) {
        return { ok: false, checked, head: prev, from: start.after.seq + 1, firstBad: { seq: row.seq, problem: 'edited', detail: `record ${row.seq} holds more than its hash covers (a time finer than a millisecond, or a number finer than the record was written with): it was changed after it was written` } };
      }
      const selfOk = auditHash(row) === row.hash;
      const linked = row.prev_hash === prev.hash;
      const next = row.seq === prev.seq + 1;
      if (selfOk && linked && next) {
        prev = { seq: row.seq, hash: row.hash };
        continue;
      }
      return { ok: false, checked, head: prev, firstBad: await diagnose(exec, prev, row, selfOk, next), from: start.after.seq + 1 };
    }
    if (batch.length < batchSize) {
      const from = start.after.seq + 1;
      if (opts.expectHead && opts.expectHead.seq <= start.after.seq) {
        // an archive's last record is known by its hash: a head that was one must still be it
        const boundary = await exec.select().from(auditArchives).where(eq(auditArchives.last_seq, opts.expectHead.seq)).limit(1);
        if (boundary[0] && boundary[0].last_hash !== opts.expectHead.hash) {
          return { ok: false, checked, head: prev, from, firstBad: { seq: opts.expectHead.seq, problem: 'edited', detail: `archive ${boundary[0].id} ends at record ${opts.expectHead.seq} with another hash than the one seen before: the chain was rewritten there or earlier` } };
        }
        if (!boundary[0]) return { ok: true, checked, head: prev, from, note: `record ${opts.expectHead.seq} is archived (${start.archive?.file} and earlier archives): check it there with audit verify --file … --head` };
        return { ok: true, checked, head: prev, from };
      }
      const anchored = opts.expectHead ? await againstAnchor(exec, prev, opts.expectHead) : undefined;
      return anchored ? { ok: false, checked, head: prev, firstBad: anchored, from } : { ok: true, checked, head: prev, from };
    }
  }
}

/**
 * The hash reads `at` to the millisecond and `data` as JavaScript reads it, so an edit below that (microseconds
 * added, `1` made `1.0000000000000000001`) would keep the hash. Records are written at millisecond times from
 * JavaScript values: the database must hold exactly that, or the row was changed since.
 */
async function beyondTheHash(exec: Executor, batch: readonly AuditRow[]): Promise<Set<number>> {
  if (batch.length === 0) return new Set();
  const seqs = pgColumn(batch, (r) => r.seq);
  const data = pgColumn(batch, (r) => JSON.stringify(r.data));
  const found = await exec.execute<{ seq: string }>(sql`
    select a.seq from unnest(${seqs}::bigint[], ${data}::text[]) as s(seq, data) join ${auditEvents} a on a.seq = s.seq
    where a.at <> date_trunc('milliseconds', a.at) or a.data is distinct from s.data::jsonb`);
  return new Set(found.rows.map((r) => Number(r.seq)));
}

/**
 * A chain can be cut at its end, or rewritten from some record on with fresh
 * hashes, and still link up. A head kept elsewhere (the daemon logs it; an
 * operator copies `audit verify` output) catches both: that record must still be there, unchanged.
 */
async function againstAnchor(exec: Executor, head: Link, anchor: Link): Promise<AuditVerdict['firstBad']> {
  if (anchor.seq > head.seq) return { seq: head.seq + 1, problem: 'removed', detail: `the chain ends at ${head.seq}, but record ${anchor.seq} was seen before: records ${head.seq + 1}..${anchor.seq} are missing` };
  const [row] = await exec.select({ hash: auditEvents.hash }).from(auditEvents).where(eq(auditEvents.seq, anchor.seq));
  if (row?.hash !== anchor.hash) return { seq: anchor.seq, problem: 'edited', detail: `record ${anchor.seq} no longer has the hash seen before (${anchor.hash.slice(0, 16)}…): the chain was rewritten from there or earlier` };
  return undefined;
}

async function diagnose(exec: Executor, prev: Link, row: AuditRow, selfOk: boolean, next: boolean): Promise<NonNullable<AuditVerdict['firstBad']>> {
  const at = prev.seq + 1;
  // the record that really followed `prev` is whichever points at prev's hash
  const successors = await exec.select().from(auditEvents).where(eq(auditEvents.prev_hash, prev.hash));
  const moved = successors.find((s) => s.seq !== row.seq && auditHash({ ...s, seq: at }) === s.hash);
  if (moved) return { seq: at, problem: 'reordered', detail: `record ${moved.seq} belongs at ${at}` };
  if (successors.some((s) => s.seq === row.seq)) {
    return auditHash({ ...row, seq: at }) === row.hash && !next
      ? { seq: at, problem: 'reordered', detail: `record ${row.seq} belongs at ${at}` }
      : { seq: row.seq, problem: 'edited', detail: `record ${row.seq} does not match its hash` };
  }
  // nothing follows prev any more: it was removed, or prev itself was rewritten with a fresh hash
  const [pointed] = await exec.select({ seq: auditEvents.seq }).from(auditEvents).where(eq(auditEvents.hash, row.prev_hash)).limit(1);
  if (pointed) return { seq: at, problem: 'reordered', detail: `record ${row.seq} follows record ${pointed.seq}` };
  if (!next) return { seq: at, problem: 'removed', detail: `records ${at}..${row.seq - 1} are missing` };
  const shift = renumberedBy(row);
  if (shift > 0) return { seq: at, problem: 'removed', detail: `records were removed and ${row.seq} renumbered from ${row.seq + shift}` };
  if (selfOk) return { seq: prev.seq, problem: 'edited', detail: `record ${prev.seq} was rewritten; record ${row.seq} points at a hash no record has` };
  return { seq: row.seq, problem: 'edited', detail: `record ${row.seq} does not match its hash` };
}

/** A record whose hash matches a later seq was moved down to close a gap. */
function renumberedBy(row: AuditRow): number {
  for (let n = 1; n <= 100; n++) if (auditHash({ ...row, seq: row.seq + n }) === row.hash) return n;
  return 0;
}
