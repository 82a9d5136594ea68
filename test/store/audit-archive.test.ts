import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appendAudits, auditHead, listAudit } from '../../src/store/audit.ts';
import { chainStart, deleteArchivedRecords, planArchive, plannedRecords, recordArchive, type ArchivePlan } from '../../src/store/audit-archive.ts';
import { ChainWalk } from '../../src/store/audit-file.ts';
import { databaseNow } from '../../src/store/db.ts';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { auditArchives } from '../../src/store/schema.ts';
import { groupCommitAppend } from '../../src/store/audit-writer.ts';
import { freshDatabase, tamper, type TestDatabase } from '../support/db.ts';

/** Each test its own chain: archives move the start of the whole schema's chain. */
async function withChain(fn: (d: TestDatabase) => Promise<void>): Promise<void> {
  const d = await freshDatabase();
  try {
    await fn(d);
  } finally {
    await d.drop();
  }
}

/** n records appended now. */
async function oldRecords(d: TestDatabase, n: number, kind = 'test.old'): Promise<void> {
  await appendAudits(d.db, Array.from({ length: n }, (_, i) => ({ kind, reason: `r${i}` })));
}

async function archive(d: TestDatabase, before: Date, actor = 'ops'): Promise<{ plan: ArchivePlan; lines: string[] }> {
  const plan = (await planArchive(d.db, before))!;
  const walk = new ChainWalk(plan.after);
  const lines: string[] = [];
  for await (const row of plannedRecords(d.db, plan)) { walk.push(row); lines.push(JSON.stringify(row)); }
  expect(walk.firstBad).toBeNull();
  await recordArchive(d.db, { plan, lastHash: walk.head!.hash, before, file: 'a.jsonl', fileSha256: 'f'.repeat(64), actor });
  await deleteArchivedRecords(d.db);
  return { plan, lines };
}

const future = () => new Date(Date.now() + 60_000);

describe('audit archive', () => {
  it('moves every record but the newest out of the chain, which still verifies from where it now begins', () => withChain(async (d) => {
    await oldRecords(d, 20);
    const head = await auditHead(d.db);
    const { plan, lines } = await archive(d, future());
    expect(plan).toEqual({ after: { seq: 0, hash: '0'.repeat(64) }, first: 1, last: head.seq - 1 });
    expect(lines).toHaveLength(19);
    const left = await listAudit(d.db, { limit: 100, order: 'asc' });
    // the old head and the audit.archived record that names the file
    expect(left.map((r) => r.kind)).toEqual(['test.old', 'audit.archived']);
    expect(left[1]!.data).toMatchObject({ first_seq: 1, last_seq: 19, file: 'a.jsonl' });
    expect(await verifyAudit(d.db)).toMatchObject({ ok: true, from: 20, checked: 2 });
  }));

  it('a second archive follows the first, and the files chain: each starts after the head of the one before', () => withChain(async (d) => {
    await oldRecords(d, 5);
    const first = await archive(d, future());
    await oldRecords(d, 5);
    const second = await archive(d, future());
    expect(second.plan.after.seq).toBe(first.plan.last);
    const walk = new ChainWalk(second.plan.after);
    for (const line of second.lines) walk.push({ ...JSON.parse(line), at: new Date(JSON.parse(line).at) });
    expect(walk.firstBad).toBeNull();
    // read from the genesis, the second file is missing the first one's records
    const fromGenesis = new ChainWalk();
    fromGenesis.push({ ...JSON.parse(second.lines[0]!), at: new Date(JSON.parse(second.lines[0]!).at) });
    expect(fromGenesis.firstBad).toMatchObject({ problem: 'removed' });
    expect((await verifyAudit(d.db)).ok).toBe(true);
  }));

  it('archives only records stamped before the instant', () => withChain(async (d) => {
    await oldRecords(d, 3);
    await new Promise((r) => setTimeout(r, 20));
    const cut = await databaseNow(d.db);
    await new Promise((r) => setTimeout(r, 20));
    await oldRecords(d, 3, 'test.new');
    expect(await planArchive(d.db, cut)).toMatchObject({ first: 1, last: 3 });
    expect(await planArchive(d.db, new Date(cut.getTime() - 86_400_000))).toBeNull();
  }));

  it('the append-only trigger still refuses a DELETE no archive covers, and every UPDATE', () => withChain(async (d) => {
    await oldRecords(d, 6);
    await archive(d, future());
    const [kept] = await listAudit(d.db, { limit: 1, order: 'asc' });
    await expect(d.db.execute(sql`delete from audit_events where seq = ${kept!.seq}`)).rejects.toThrow();
    await expect(d.db.execute(sql`update audit_events set reason = 'x' where seq = ${kept!.seq}`)).rejects.toThrow();
    expect((await verifyAudit(d.db)).ok).toBe(true);
  }));

  it('verify finds records removed from the start when the archive row is deleted, or widened to hide them', () => withChain(async (d) => {
    await oldRecords(d, 10);
    await archive(d, future());
    await oldRecords(d, 3);
    expect((await verifyAudit(d.db)).ok).toBe(true);
    const { archive: latest } = await chainStart(d.db);
    // widened: two more records deleted, the row moved to claim them
    const [next1, next2] = await listAudit(d.db, { limit: 2, order: 'asc' });
    await tamper(d, `delete from audit_events where seq in (${next1!.seq}, ${next2!.seq})`,
      `update audit_archives set last_seq = ${next2!.seq}, last_hash = '${next2!.hash}' where id = '${latest!.id}'`);
    expect(await verifyAudit(d.db)).toMatchObject({ ok: false, firstBad: { problem: 'removed' } });
    // gone altogether: the chain seems to start from the genesis, and its first records are missing
    await tamper(d, 'delete from audit_archives');
    expect(await verifyAudit(d.db)).toMatchObject({ ok: false, firstBad: { seq: 1, problem: 'removed' } });
  }));

  it('a writer whose remembered tail was archived appends after the real head, not into the freed seqs', () => withChain(async (d) => {
    const stale = groupCommitAppend(d.db);
    await stale({ kind: 'test.stale.first' });
    // another writer moves the chain on; the stale writer still remembers its own record as the tail
    await oldRecords(d, 10, 'test.other');
    await archive(d, future());
    await stale({ kind: 'test.stale.second' });
    const rows = await listAudit(d.db, { limit: 100, order: 'asc' });
    expect(rows.map((r) => r.kind)).toEqual(['test.other', 'audit.archived', 'test.stale.second']);
    expect((await verifyAudit(d.db)).ok).toBe(true);
  }));

  it('rows an interrupted archive left behind are deleted by the next one and ignored by verify meanwhile', () => withChain(async (d) => {
    await oldRecords(d, 8);
    const plan = (await planArchive(d.db, future()))!;
    const walk = new ChainWalk(plan.after);
    for await (const row of plannedRecords(d.db, plan)) walk.push(row);
    await recordArchive(d.db, { plan, lastHash: walk.head!.hash, before: future(), file: 'a.jsonl', fileSha256: 'f'.repeat(64), actor: 'ops' });
    // the process died before deleting: rows 1..7 are still there
    expect(await verifyAudit(d.db)).toMatchObject({ ok: true, from: 8 });
    expect(await deleteArchivedRecords(d.db)).toBe(7);
    expect(await deleteArchivedRecords(d.db)).toBe(0);
  }));

  it('refuses to record an archive when another was made after the plan', () => withChain(async (d) => {
    await oldRecords(d, 6);
    const plan = (await planArchive(d.db, future()))!;
    const rows: string[] = [];
    let lastHash = '';
    for await (const row of plannedRecords(d.db, plan)) { rows.push(row.hash); lastHash = row.hash; }
    await archive(d, future());
    await expect(recordArchive(d.db, { plan, lastHash, before: future(), file: 'b.jsonl', fileSha256: 'f'.repeat(64), actor: 'ops' }))
      .rejects.toThrow(/another archive was made meanwhile/);
  }));

  it('a temporary table named audit_archives does not open the append-only trigger', () => withChain(async (d) => {
    await oldRecords(d, 4);
    const client = await d.pool.connect();
    try {
      await client.query('create temp table audit_archives (last_seq bigint)');
      await client.query('insert into pg_temp.audit_archives values (999999)');
      await expect(client.query('delete from audit_events where seq = 4')).rejects.toThrow(/append-only/);
    } finally {
      await client.query('drop table if exists pg_temp.audit_archives');
      client.release();
    }
    expect((await verifyAudit(d.db)).ok).toBe(true);
  }));

  it('archives are append-only, and one must follow the last and end before the chain\'s newest record', () => withChain(async (d) => {
    await oldRecords(d, 6);
    await archive(d, future());
    const { archive: a } = await chainStart(d.db);
    const refusal = (p: Promise<unknown>) => p.then(() => 'done', (err: { cause?: { message?: string } }) => err.cause?.message ?? String(err));
    expect(await refusal(d.db.execute(sql`update audit_archives set last_seq = last_seq + 1`))).toMatch(/append-only/);
    expect(await refusal(d.db.execute(sql`delete from audit_archives`))).toMatch(/append-only/);
    const [head] = await listAudit(d.db, { limit: 1 });
    const forged = (over: Record<string, unknown>) => ({
      id: 'arc_forged', first_seq: a!.last_seq + 1, last_seq: head!.seq, last_hash: head!.hash, after_seq: a!.last_seq, after_hash: a!.last_hash,
      records: 1, before: new Date(), file: 'x', file_sha256: 'f'.repeat(64), archived_by: 'mallory', ...over,
    });
    const insert = (over: Record<string, unknown>) => d.db.insert(auditArchives).values(forged(over) as typeof auditArchives.$inferInsert);
    // ending at the newest record, which must stay
    expect(await refusal(insert({}))).toMatch(/before its newest/);
    // not following the newest archive
    expect(await refusal(insert({ after_seq: 0, after_hash: '0'.repeat(64), first_seq: 1, last_seq: head!.seq - 1 }))).toMatch(/right after the newest one/);
    expect((await chainStart(d.db)).archive?.id).toBe(a!.id);
  }));

  it('verify --head at an archive\'s last record checks its hash against the archive', () => withChain(async (d) => {
    await oldRecords(d, 6);
    await archive(d, future());
    const { archive: a } = await chainStart(d.db);
    expect(await verifyAudit(d.db, { expectHead: { seq: a!.last_seq, hash: a!.last_hash } })).toMatchObject({ ok: true });
    expect(await verifyAudit(d.db, { expectHead: { seq: a!.last_seq, hash: 'e'.repeat(64) } })).toMatchObject({ ok: false, firstBad: { problem: 'edited' } });
  }));
});
