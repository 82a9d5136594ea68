import { afterAll, describe, expect, it } from 'vitest';
import { appendAudit, appendAudits, auditHash, auditHead, exportAudit, listAudit } from '../../src/store/audit.ts';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { openDatabase } from '../../src/store/db.ts';
import { freshDatabase, tamper, TEST_DATABASE_URL, type TestDatabase } from '../support/db.ts';

const made: TestDatabase[] = [];
afterAll(async () => {
  for (const d of made) await d.drop();
});

async function chainOf(n: number): Promise<TestDatabase> {
  const d = await freshDatabase();
  made.push(d);
  for (let i = 1; i <= n; i++) {
    await appendAudit(d.db, { kind: 'gate.decision', actor: 'alice', step: 4, rule: 'unattended.read_only', outcome: 'allow', risk: 'read_only', reason: `call ${i}`, data: { i } });
  }
  return d;
}

describe('audit chain', () => {
  it('verifies an untouched chain and reports its head', async () => {
    const d = await chainOf(12);
    const v = await verifyAudit(d.db, { batchSize: 5 });
    expect(v).toMatchObject({ ok: true, checked: 12, head: { seq: 12 } });
    expect(v.head).toEqual(await auditHead(d.db));
  });

  it('with a head kept elsewhere, detects a cut tail and a chain rewritten with fresh hashes', async () => {
    const d = await chainOf(6);
    const kept = await auditHead(d.db);
    expect(await verifyAudit(d.db, { expectHead: kept })).toMatchObject({ ok: true });
    // the last two records deleted: what remains still links up
    await tamper(d, 'delete from audit_events where seq > 4');
    expect(await verifyAudit(d.db)).toMatchObject({ ok: true });
    expect(await verifyAudit(d.db, { expectHead: kept })).toMatchObject({ ok: false, firstBad: { seq: 5, problem: 'removed' } });
  });

  it('with a head kept elsewhere, detects a record edited and the chain after it recomputed', async () => {
    const d = await chainOf(5);
    const kept = await auditHead(d.db);
    const rows = await listAudit(d.db, { order: 'asc' });
    // rewrite record 3 and re-hash it and everything after, as someone with the table and the code could
    let prev = rows[1]!.hash;
    const fixes: string[] = [];
    for (const r of rows.slice(2)) {
      const edited = { ...r, reason: r.seq === 3 ? 'nothing to see' : r.reason, prev_hash: prev };
      const hash = auditHash(edited);
      fixes.push(`update audit_events set reason = '${edited.reason}', prev_hash = '${prev}', hash = '${hash}' where seq = ${r.seq}`);
      prev = hash;
    }
    await tamper(d, ...fixes);
    expect(await verifyAudit(d.db)).toMatchObject({ ok: true });
    expect(await verifyAudit(d.db, { expectHead: kept })).toMatchObject({ ok: false, firstBad: { seq: 5, problem: 'edited' } });
  });

  it('verifies an empty chain', async () => {
    const d = await freshDatabase();
    made.push(d);
    expect(await verifyAudit(d.db)).toMatchObject({ ok: true, checked: 0, head: { seq: 0 } });
  });

  it('keeps one unbroken chain under concurrent writers on separate connections', async () => {
    const d = await freshDatabase();
    made.push(d);
    const writers = Array.from({ length: 4 }, () => openDatabase({ url: TEST_DATABASE_URL, poolMax: 3, schema: d.schema }));
    try {
      await Promise.all(writers.flatMap((w, wi) => Array.from({ length: 30 }, (_, i) =>
        i % 5 === 0
          ? appendAudits(w.db, [{ kind: 'run.state', data: { wi, i, part: 1 } }, { kind: 'run.state', data: { wi, i, part: 2 } }])
          : appendAudit(w.db, { kind: 'run.state', data: { wi, i } }))));
    } finally {
      await Promise.all(writers.map((w) => w.close()));
    }
    expect(await verifyAudit(d.db, { batchSize: 7 })).toMatchObject({ ok: true, checked: 4 * 30 + 4 * 6 });
  });

  it('rejects UPDATE, DELETE and TRUNCATE through the append-only trigger', async () => {
    const d = await chainOf(3);
    for (const s of ["update audit_events set reason = 'x' where seq = 2", 'delete from audit_events where seq = 3', 'truncate audit_events']) {
      await expect(d.pool.query(s), s).rejects.toThrow(/append-only/);
    }
    expect((await verifyAudit(d.db)).ok).toBe(true);
  });

  const attacks: { name: string; sql: string[]; seq: number; problem: string }[] = [
    { name: 'an edited reason', sql: ["update audit_events set reason = 'nothing to see' where seq = 5"], seq: 5, problem: 'edited' },
    { name: 'an edited outcome in data', sql: [`update audit_events set data = '{"i": 99}' where seq = 7`], seq: 7, problem: 'edited' },
    { name: 'an edited first record', sql: ["update audit_events set actor = 'mallory' where seq = 1"], seq: 1, problem: 'edited' },
    // JSON.parse makes __proto__ an own key; a hash that dropped it would not see this edit
    { name: 'a subtree added under __proto__', sql: [`update audit_events set data = data || '{"__proto__": {"x": 1}}' where seq = 6`], seq: 6, problem: 'edited' },
    { name: 'a deleted record', sql: ['delete from audit_events where seq = 5'], seq: 5, problem: 'removed' },
    { name: 'a deleted first record', sql: ['delete from audit_events where seq = 1'], seq: 1, problem: 'removed' },
    { name: 'several deleted records', sql: ['delete from audit_events where seq between 4 and 6'], seq: 4, problem: 'removed' },
    {
      name: 'a deleted record with the gap renumbered away',
      sql: ['delete from audit_events where seq = 5', 'update audit_events set seq = -(seq - 1) where seq > 5', 'update audit_events set seq = -seq where seq < 0'],
      seq: 5, problem: 'removed',
    },
    {
      name: 'two records swapped',
      sql: ['update audit_events set seq = -seq where seq in (5, 6)', 'update audit_events set seq = case seq when -5 then 6 else 5 end where seq < 0'],
      seq: 5, problem: 'reordered',
    },
    { name: 'a record moved to the end', sql: ['update audit_events set seq = 100 where seq = 3'], seq: 3, problem: 'reordered' },
    // below what the hash reads: `at` to the millisecond, numbers as JavaScript doubles
    { name: 'a time moved by less than a millisecond', sql: ["update audit_events set at = at + interval '900 microseconds' where seq = 6"], seq: 6, problem: 'edited' },
    { name: 'a number changed beyond double precision', sql: [`update audit_events set data = '{"i": 8.0000000000000000001}' where seq = 8`], seq: 8, problem: 'edited' },
  ];

  it.each(attacks)('detects $name done with raw SQL', async ({ sql, seq, problem }) => {
    const d = await chainOf(10);
    await tamper(d, ...sql);
    const v = await verifyAudit(d.db, { batchSize: 4 });
    expect(v.ok).toBe(false);
    expect(v.firstBad).toMatchObject({ seq, problem });
    expect(v.head.seq).toBe(seq - 1);
  });

  it('detects an edit by someone who knows the hash rule and recomputed that record (the next link breaks)', async () => {
    const d = await chainOf(10);
    const [row] = await listAudit(d.db, { afterSeq: 4, order: 'asc', limit: 1 });
    const forged = { ...row!, reason: 'forged' };
    await tamper(d, `update audit_events set reason = 'forged', hash = '${auditHash(forged)}' where seq = 5`);
    const v = await verifyAudit(d.db);
    expect(v).toMatchObject({ ok: false, firstBad: { seq: 5, problem: 'edited' } });
  });

  it('never lets a credential reach the audit table, in any field (I11)', async () => {
    const d = await freshDatabase();
    made.push(d);
    const secrets = ['tok-9f8e7d6c5b4a', 'pw-0a1b2c3d4e', 'sk-abcdefghijklmnopqrstuv', 'ghp_abcdefghijklmnopqrstuvwxyz01'];
    await appendAudit(d.db, {
      kind: 'run.state', actor: 'cron', reason: `webhook https://bot:${secrets[1]}@hooks.example/x said: token=${secrets[0]}`,
      data: {
        headers: { Authorization: `Bearer ${secrets[0]}`, 'x-api-key': secrets[2] },
        credentials: { github: secrets[3] },
        nested: [{ password: secrets[1] }, `use ${secrets[2]} please`],
        url: `postgres://app:${secrets[1]}@db/x`,
      },
    });
    const raw = (await d.pool.query('select t::text as t from audit_events t')).rows.map((r) => r.t).join('\n');
    for (const secret of secrets) expect(raw).not.toContain(secret);
    expect(raw).toContain('[REDACTED]');
    expect((await verifyAudit(d.db)).ok).toBe(true);
  });

  it('lists newest first with filters and exports in chain order', async () => {
    const d = await freshDatabase();
    made.push(d);
    await appendAudits(d.db, [
      { kind: 'job.created', job_id: 'job_a' }, { kind: 'grant.issued', job_id: 'job_a' },
      { kind: 'job.created', job_id: 'job_b' }, { kind: 'grant.revoked', job_id: 'job_a' },
    ]);
    expect((await listAudit(d.db, { job_id: 'job_a' })).map((r) => r.kind)).toEqual(['grant.revoked', 'grant.issued', 'job.created']);
    expect((await listAudit(d.db, { kind: 'job.created', order: 'asc' })).map((r) => r.job_id)).toEqual(['job_a', 'job_b']);
    expect(await listAudit(d.db, { since: new Date(Date.now() + 60_000) })).toEqual([]);
    const exported: number[] = [];
    for await (const row of exportAudit(d.db, {}, 3)) exported.push(row.seq);
    expect(exported).toEqual([1, 2, 3, 4]);
  });
});
