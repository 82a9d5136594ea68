import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { listAudit } from '../../src/store/audit.ts';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { changeWithRecord, directAppend, groupCommitAppend } from '../../src/store/audit-writer.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('group commit of audit records', () => {
  it('writes concurrent appends in shared transactions, every one committed and the chain intact', async () => {
    const db = database().db;
    const append = groupCommitAppend(db);
    const rows = await Promise.all(Array.from({ length: 200 }, (_, i) => append({ kind: 'test.group', job_id: 'job_group', data: { i } })));
    const seqs = rows.map((r) => r.seq).sort((a, b) => a - b);
    expect(new Set(seqs).size).toBe(200);
    expect(seqs.at(-1)! - seqs[0]!).toBe(199);
    const stored = await listAudit(db, { job_id: 'job_group', limit: 500 });
    expect(stored).toHaveLength(200);
    // one transaction stamps one instant: far fewer instants than records means they were batched
    expect(new Set(stored.map((r) => r.at.getTime())).size).toBeLessThan(50);
    expect((await verifyAudit(db)).ok).toBe(true);
  });

  it('keeps one caller\'s records in the order it appended them', async () => {
    const db = database().db;
    const append = groupCommitAppend(db);
    const a = await append({ kind: 'test.order', job_id: 'job_order', data: { n: 1 } });
    const b = await append({ kind: 'test.order', job_id: 'job_order', data: { n: 2 } });
    expect(b.seq).toBeGreaterThan(a.seq);
    expect(b.prev_hash).toBe(a.hash);
  });

  it('is ordered: once a later record is committed, an earlier one that nobody awaited is committed too', async () => {
    const db = database().db;
    const append = groupCommitAppend(db);
    expect(append.ordered).toBe(true);
    expect(directAppend(db).ordered).toBeFalsy();
    const early = append({ kind: 'test.early', job_id: 'job_ordered' });
    const late = await append({ kind: 'test.late', job_id: 'job_ordered' });
    const stored = await listAudit(db, { job_id: 'job_ordered', order: 'asc' });
    expect(stored.map((r) => r.kind)).toEqual(['test.early', 'test.late']);
    expect((await early).seq).toBeLessThan(late.seq);
  });

  it('one record the database refuses does not fail the others in its batch', async () => {
    const db = database().db;
    const append = groupCommitAppend(db);
    const results = await Promise.allSettled([
      append({ kind: 'test.ok', job_id: 'job_bad', data: { i: 1 } }),
      // a step outside int range makes PostgreSQL refuse the insert
      append({ kind: 'test.bad', job_id: 'job_bad', step: 2 ** 40 }),
      append({ kind: 'test.ok', job_id: 'job_bad', data: { i: 2 } }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await listAudit(db, { job_id: 'job_bad' })).map((r) => r.kind).sort()).toEqual(['test.ok', 'test.ok']);
    expect((await verifyAudit(db)).ok).toBe(true);
  });

  it('commits a state change with its record, and neither when the change fails', async () => {
    const db = database().db;
    const append = groupCommitAppend(db);
    await db.execute(sql`create table if not exists writer_probe (k text primary key)`);
    const [good, bad] = await Promise.allSettled([
      append.withChange!((tx) => tx.execute(sql`insert into writer_probe values ('good')`), { kind: 'test.change', job_id: 'job_change', data: { k: 'good' } }),
      append.withChange!((tx) => tx.execute(sql`insert into writer_probe values (null)`), { kind: 'test.change', job_id: 'job_change', data: { k: 'bad' } }),
    ]);
    expect([good.status, bad.status]).toEqual(['fulfilled', 'rejected']);
    expect((await db.execute<{ k: string }>(sql`select k from writer_probe`)).rows.map((r) => r.k)).toEqual(['good']);
    expect((await listAudit(db, { job_id: 'job_change' })).map((r) => (r.data as { k: string }).k)).toEqual(['good']);
    expect((await verifyAudit(db)).ok).toBe(true);
  });

  it('without a batching writer, a change and its record still share one transaction', async () => {
    const db = database().db;
    await db.execute(sql`create table if not exists writer_probe2 (k text primary key)`);
    await expect(changeWithRecord(db, directAppend(db), (tx) => tx.execute(sql`insert into writer_probe2 values (null)`), { kind: 'test.direct_change', job_id: 'job_direct' })).rejects.toThrow();
    expect(await listAudit(db, { job_id: 'job_direct' })).toEqual([]);
    await changeWithRecord(db, directAppend(db), (tx) => tx.execute(sql`insert into writer_probe2 values ('x')`), { kind: 'test.direct_change', job_id: 'job_direct' });
    expect(await listAudit(db, { job_id: 'job_direct' })).toHaveLength(1);
  });

  it('the direct writer appends one record per transaction', async () => {
    const row = await directAppend(database().db)({ kind: 'test.direct' });
    expect(row.kind).toBe('test.direct');
  });
});
