import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { listAudit } from '../../src/store/audit.ts';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { changeWithRecord, directAppend, groupCommitAppend, withLeadingRecord } from '../../src/store/audit-writer.ts';
import { databaseNow, openDatabase, type Executor } from '../../src/store/db.ts';
import { useTestDatabase } from '../support/db.ts';
import { tcpProxy } from '../support/tcp-proxy.ts';
import { until as waitUntil } from '../support/until.ts';

const database = useTestDatabase();

describe('group commit of audit records', () => {
  /** A writer whose connections go through a proxy the test breaks; the test looks through its own. */
  async function writerThroughProxy(wrap: (db: Executor) => Executor = (db) => db) {
    const t = database();
    const proxy = await tcpProxy(5432);
    const far = openDatabase({ url: t.url.replace(':5432', `:${proxy.port}`), schema: t.schema, poolMax: 2 });
    const until = (seen: () => Promise<boolean>) => waitUntil('the batch reaching the database', seen, 30_000);
    return { t, proxy, append: groupCommitAppend(wrap(far.db)), until, close: async () => { await far.close(); await proxy.close(); } };
  }

  it('a batch that committed but whose answer was lost with the connection is not written a second time', async () => {
    const { t, proxy, append, until, close } = await writerThroughProxy();
    try {
      await append({ kind: 'test.lost.first', job_id: 'job_lost' });
      proxy.holdRepliesAfter('echo_audit_append_after');
      const pending = Promise.all([append({ kind: 'test.lost.a', job_id: 'job_lost' }), append({ kind: 'test.lost.b', job_id: 'job_lost' })]);
      await until(async () => (await listAudit(t.db, { job_id: 'job_lost' })).length === 3);
      proxy.drop();
      const rows = await pending;
      expect(rows.map((r) => r.kind)).toEqual(['test.lost.a', 'test.lost.b']);
      expect((await listAudit(t.db, { job_id: 'job_lost', order: 'asc' })).map((r) => r.kind)).toEqual(['test.lost.first', 'test.lost.a', 'test.lost.b']);
      expect(await verifyAudit(t.db)).toMatchObject({ ok: true });
    } finally {
      await close();
    }
  });

  it('a state change whose commit went through but whose answer was lost is not applied again, and its caller gets its result', async () => {
    const { t, proxy, append, until, close } = await writerThroughProxy();
    await t.db.execute(sql`create table if not exists writer_probe_lost (k text primary key)`);
    try {
      await append({ kind: 'test.lostchange.first', job_id: 'job_lostchange' });
      proxy.holdRepliesAfter('commit');
      const out = append.withChange!(async (tx) => {
        await tx.execute(sql`insert into writer_probe_lost values ('once')`); // a second apply would hit the primary key
        return 'changed';
      }, { kind: 'test.lostchange.change', job_id: 'job_lostchange' });
      await until(async () => (await t.db.execute(sql`select 1 from writer_probe_lost`)).rows.length === 1);
      proxy.drop();
      expect(await out).toBe('changed');
      expect((await listAudit(t.db, { job_id: 'job_lostchange', order: 'asc' })).map((r) => r.kind)).toEqual(['test.lostchange.first', 'test.lostchange.change']);
    } finally {
      await close();
    }
  });

  it('a one-statement change that committed but whose answer (its RETURNING rows) was lost fails its caller plainly and is not applied again', async () => {
    const { t, proxy, append, until, close } = await writerThroughProxy();
    await t.db.execute(sql`create table if not exists writer_probe_lost1 (k text primary key)`);
    try {
      await append({ kind: 'test.lost1.first', job_id: 'job_lost1' });
      proxy.holdRepliesAfter('writer_probe_lost1_insert');
      const out = append.withChange!({
        name: 'writer_probe_lost1_insert', text: 'insert into writer_probe_lost1 values ($1) returning k', values: ['once'], result: (rows) => rows[0]?.k,
      }, { kind: 'test.lost1.change', job_id: 'job_lost1' });
      await until(async () => (await t.db.execute(sql`select 1 from writer_probe_lost1`)).rows.length === 1);
      proxy.drop();
      await expect(out).rejects.toThrow('test.lost1.change: the change and its record were committed, but the answer was lost with the connection');
      expect((await listAudit(t.db, { job_id: 'job_lost1', order: 'asc' })).map((r) => r.kind)).toEqual(['test.lost1.first', 'test.lost1.change']);
    } finally {
      await close();
    }
  });

  it('a lost answer is still found committed when the database then refuses connections for several seconds (a restart)', async () => {
    const { t, proxy, append, until, close } = await writerThroughProxy();
    try {
      await append({ kind: 'test.restart.first', job_id: 'job_restart' });
      proxy.holdRepliesAfter('echo_audit_append_after');
      const pending = append({ kind: 'test.restart.a', job_id: 'job_restart' });
      await until(async () => (await listAudit(t.db, { job_id: 'job_restart' })).length === 2);
      // the server goes away with the answer, and takes 6 s to accept connections again
      await proxy.cut();
      setTimeout(() => void proxy.restore(), 6_000);
      expect((await pending).kind).toBe('test.restart.a');
      expect((await listAudit(t.db, { job_id: 'job_restart', order: 'asc' })).map((r) => r.kind)).toEqual(['test.restart.first', 'test.restart.a']);
    } finally {
      await close();
    }
  }, 60_000);

  it('a lost answer is still found committed when the first question after it meets another broken connection', async () => {
    // the pool's next connection broke with the first: the writer's "did it commit?" fails once the same way
    let breakNextQuestion = false;
    const { t, proxy, append, until, close } = await writerThroughProxy((db) => new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === 'execute' && breakNextQuestion) {
          breakNextQuestion = false;
          return () => Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }));
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    }));
    await t.db.execute(sql`create table if not exists writer_probe_lost2 (k text primary key)`);
    try {
      await append({ kind: 'test.lost2.first', job_id: 'job_lost2' });
      proxy.holdRepliesAfter('writer_probe_lost2_insert');
      const out = append.withChange!({
        name: 'writer_probe_lost2_insert', text: 'insert into writer_probe_lost2 values ($1) returning k', values: ['once'], result: (rows) => rows[0]?.k,
      }, { kind: 'test.lost2.change', job_id: 'job_lost2' });
      await until(async () => (await t.db.execute(sql`select 1 from writer_probe_lost2`)).rows.length === 1);
      breakNextQuestion = true;
      proxy.drop();
      // not the connection error, which would tell its caller to write it again
      await expect(out).rejects.toThrow('test.lost2.change: the change and its record were committed, but the answer was lost with the connection');
      expect(breakNextQuestion).toBe(false);
      expect((await listAudit(t.db, { job_id: 'job_lost2', order: 'asc' })).map((r) => r.kind)).toEqual(['test.lost2.first', 'test.lost2.change']);
    } finally {
      await close();
    }
  });

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

  it('keeps one chain when other writers append between its batches: two daemons\' writers and a CLI on separate connections', async () => {
    const t = database();
    const other = openDatabase({ url: t.url, schema: t.schema, poolMax: 3 });
    try {
      const a = groupCommitAppend(t.db);
      const b = groupCommitAppend(other.db);
      const cli = directAppend(other.db);
      const writes: Promise<unknown>[] = [];
      for (let round = 0; round < 30; round++) {
        // each writer's remembered tail goes stale every round
        writes.push(a({ kind: 'test.interleave', job_id: 'job_interleave', data: { w: 'a', round } }));
        writes.push(b({ kind: 'test.interleave', job_id: 'job_interleave', data: { w: 'b', round } }));
        writes.push(cli({ kind: 'test.interleave', job_id: 'job_interleave', data: { w: 'cli', round } }));
        if (round % 3 === 0) await Promise.all(writes.splice(0));
      }
      await Promise.all(writes);
      const stored = await listAudit(t.db, { job_id: 'job_interleave', limit: 500, order: 'asc' });
      expect(stored).toHaveLength(90);
      expect(await verifyAudit(t.db)).toMatchObject({ ok: true });
      // whichever clock stamped them, times never go backwards along the chain
      for (let i = 1; i < stored.length; i++) expect(stored[i]!.at.getTime()).toBeGreaterThanOrEqual(stored[i - 1]!.at.getTime());
    } finally {
      await other.close();
    }
  });

  it('a batch whose remembered tail went stale commits its state change once, with its record', async () => {
    const t = database();
    const append = groupCommitAppend(t.db);
    await t.db.execute(sql`create table if not exists writer_probe3 (k text primary key)`);
    await append({ kind: 'test.stale', job_id: 'job_stale' });
    // someone else appends: the writer's next batch fails its one-statement append and is written again
    await directAppend(t.db)({ kind: 'test.stale.other', job_id: 'job_stale' });
    const out = await append.withChange!(async (tx) => {
      await tx.execute(sql`insert into writer_probe3 values ('once')`); // a second commit would hit the primary key
      return 'changed';
    }, { kind: 'test.stale.change', job_id: 'job_stale' });
    expect(out).toBe('changed');
    expect((await t.db.execute<{ k: string }>(sql`select k from writer_probe3`)).rows).toEqual([{ k: 'once' }]);
    expect((await listAudit(t.db, { job_id: 'job_stale', order: 'asc' })).map((r) => r.kind)).toEqual(['test.stale', 'test.stale.other', 'test.stale.change']);
    expect((await verifyAudit(t.db)).ok).toBe(true);
  });

  it('state changes of one statement on different rows share a batch: each caller gets its own result, with its record', async () => {
    const t = database();
    const append = groupCommitAppend(t.db);
    await t.db.execute(sql`create table if not exists writer_probe_shared (k text primary key, n int)`);
    await append({ kind: 'test.shared.first', job_id: 'job_shared' }); // the writer learns the tail
    // eleven parameters, so a statement's $10 and $11 must follow the one before it in the shared statement
    const change = (k: string, i: number) => ({
      name: 'writer_probe_shared_insert', target: `probe:${k}`,
      text: 'insert into writer_probe_shared (k, n) values ($1, $2::int + $3::int + $4::int + $5::int + $6::int + $7::int + $8::int + $9::int + $10::int + $11::int) returning k, n',
      values: [k, ...Array.from({ length: 10 }, () => i)], result: (rows: Record<string, unknown>[]) => rows.map((r) => `${String(r.k)}=${String(r.n)}`),
    });
    const outs = await Promise.all([
      append.withChange!(change('a', 1), { kind: 'test.shared.change', job_id: 'job_shared', data: { k: 'a' } }),
      append({ kind: 'test.shared.plain', job_id: 'job_shared' }),
      append.withChange!(change('b', 2), { kind: 'test.shared.change', job_id: 'job_shared', data: { k: 'b' } }),
      append.withChange!(change('c', 3), { kind: 'test.shared.change', job_id: 'job_shared', data: { k: 'c' } }),
    ]);
    expect([outs[0], outs[2], outs[3]]).toEqual([['a=10'], ['b=20'], ['c=30']]);
    expect((await listAudit(t.db, { job_id: 'job_shared', order: 'asc' })).map((r) => `${r.kind}${r.data.k ? `:${String(r.data.k)}` : ''}`))
      .toEqual(['test.shared.first', 'test.shared.change:a', 'test.shared.plain', 'test.shared.change:b', 'test.shared.change:c']);
    expect((await verifyAudit(t.db)).ok).toBe(true);
  });

  it('two changes of the same row in one batch both apply, one after the other', async () => {
    const t = database();
    const append = groupCommitAppend(t.db);
    await t.db.execute(sql`create table if not exists writer_probe_same (k text primary key, n int)`);
    await t.db.execute(sql`insert into writer_probe_same values ('same', 0)`);
    await append({ kind: 'test.same.first', job_id: 'job_same' });
    const bump = { name: 'writer_probe_same_bump', target: 'probe:same', text: 'update writer_probe_same set n = n + 1 where k = $1 returning n', values: ['same'], result: (rows: Record<string, unknown>[]) => rows[0]?.n };
    const outs = await Promise.all([1, 2].map(() => append.withChange!(bump, { kind: 'test.same.bump', job_id: 'job_same' })));
    expect(outs.sort()).toEqual([1, 2]);
    expect((await t.db.execute<{ n: number }>(sql`select n from writer_probe_same`)).rows).toEqual([{ n: 2 }]);
  });

  it('stamps records on the database clock and never earlier than the record before them', async () => {
    const t = database();
    const append = groupCommitAppend(t.db);
    // the first batch reads the tail and learns the clock from the midpoint of that read: off by at most half its
    // round trip, which this whole append bounds (an unevenly delayed round trip under load moves the midpoint)
    const learning = performance.now();
    await append({ kind: 'test.clock' });
    const slack = performance.now() - learning + 2;
    const before = await databaseNow(t.db);
    const rows = [];
    for (let i = 0; i < 5; i++) rows.push(await append({ kind: 'test.clock', data: { i } }));
    const after = await databaseNow(t.db);
    for (const [i, r] of rows.entries()) {
      expect(r.at.getTime()).toBeGreaterThanOrEqual(before.getTime() - slack);
      expect(r.at.getTime()).toBeLessThanOrEqual(after.getTime() + slack);
      if (i > 0) expect(r.at.getTime()).toBeGreaterThanOrEqual(rows[i - 1]!.at.getTime());
    }
  });

  it('does not take a slow commit for clock skew: records after it are not stamped in the past', async () => {
    const t = database();
    const slowCommitMs = 400;
    // every transaction ends this long after its statements, as a commit waiting on a busy disk would
    const slow = new Proxy(t.db, {
      get(target, prop, receiver) {
        if (prop !== 'transaction') return Reflect.get(target, prop, receiver) as unknown;
        return <T>(fn: (tx: Executor) => Promise<T>) => target.transaction(async (tx) => {
          const out = await fn(tx);
          await new Promise((r) => setTimeout(r, slowCommitMs));
          return out;
        });
      },
    });
    const append = groupCommitAppend(slow);
    // reads the tail, and the clock, in a transaction: the clock read's round trip is within this append's time
    // less the slow commit, so a clock learnt from it is off by less than that; one learnt across the commit
    // would be off by about half the commit
    const learning = performance.now();
    await append({ kind: 'test.slow_commit' });
    const slack = performance.now() - learning - slowCommitMs + 2;
    const before = await databaseNow(t.db);
    const next = await append({ kind: 'test.slow_commit' });
    expect(next.at.getTime()).toBeGreaterThanOrEqual(before.getTime() - slack);
  });
});

describe('a leading record', () => {
  it('commits in the same batch as the next record, just before it', async () => {
    const db = database().db;
    const { audit, lead } = withLeadingRecord(groupCommitAppend(db), { kind: 'test.lead', job_id: 'job_lead' });
    const next = await audit({ kind: 'test.after_lead', job_id: 'job_lead' });
    const first = await lead();
    expect(first.seq).toBe(next.seq - 1);
    expect(next.prev_hash).toBe(first.hash);
    // one batch, one instant
    expect(first.at.getTime()).toBe(next.at.getTime());
  });

  it('is written once, by lead(), when no other record follows', async () => {
    const db = database().db;
    const { lead } = withLeadingRecord(groupCommitAppend(db), { kind: 'test.lead_alone', job_id: 'job_lead_alone' });
    const [a, b] = await Promise.all([lead(), lead()]);
    expect(a.seq).toBe(b.seq);
    expect(await listAudit(db, { job_id: 'job_lead_alone' })).toHaveLength(1);
  });

  it('goes out at once through a writer that does not keep order', async () => {
    const db = database().db;
    withLeadingRecord(directAppend(db), { kind: 'test.lead_direct', job_id: 'job_lead_direct' });
    await expect.poll(async () => (await listAudit(db, { job_id: 'job_lead_direct' })).length, { timeout: 30_000 }).toBe(1);
  });
});
