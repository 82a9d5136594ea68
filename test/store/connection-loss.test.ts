import { sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { lostConnection, whileUnreachable } from '../../src/store/pg-errors.ts';
import { TEST_DATABASE_URL, useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

describe('a connection the server drops (a PostgreSQL restart)', () => {
  it('while a transaction holds it: the transaction fails, the process goes on, and the next query works', async () => {
    const errors: string[] = [];
    const d = openDatabase({ url: TEST_DATABASE_URL, schema: database().schema, poolMax: 2, onError: (err) => errors.push(err.message) });
    try {
      let backend = 0;
      const tx = d.db.transaction(async (t) => {
        backend = (await t.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`)).rows[0]!.pid;
        // idle in the transaction, between statements, as a firing pass or an audit batch can be
        await new Promise((r) => setTimeout(r, 1_000));
        await t.execute(sql`select 1`);
      });
      while (backend === 0) await new Promise((r) => setTimeout(r, 10));
      await terminate(backend);
      await expect(tx).rejects.toThrow();
      expect(errors.some((m) => /terminating connection/.test(m))).toBe(true);
      expect((await d.pool.query('select 1 as ok')).rows[0]).toEqual({ ok: 1 });
    } finally {
      await d.close();
    }
  });

  it('while idle in the pool: reported once, not thrown', async () => {
    const errors: string[] = [];
    const d = openDatabase({ url: TEST_DATABASE_URL, schema: database().schema, poolMax: 1, onError: (err) => errors.push(err.message) });
    try {
      const pid = (await d.pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      await terminate(pid);
      const start = Date.now();
      while (errors.length === 0 && Date.now() - start < 5_000) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100));
      expect(errors).toHaveLength(1);
      expect((await d.pool.query('select 1 as ok')).rows[0]).toEqual({ ok: 1 });
    } finally {
      await d.close();
    }
  });
});

describe('which failures are worth writing again', () => {
  it('an unreachable or restarting server is; a statement the server refused is not', async () => {
    const wrapped = (cause: unknown) => Object.assign(new Error('Failed query: commit'), { cause });
    expect(lostConnection(wrapped(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })))).toBe(true);
    expect(lostConnection(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL' }))).toBe(true);
    expect(lostConnection(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(lostConnection(wrapped(Object.assign(new Error('duplicate key'), { code: '23505', severity: 'ERROR' })))).toBe(false);
    let tries = 0;
    await expect(whileUnreachable(async () => { tries++; throw Object.assign(new Error('duplicate key'), { code: '23505' }); }, { delaysMs: [1, 1] })).rejects.toThrow('duplicate key');
    expect(tries).toBe(1);
    tries = 0;
    expect(await whileUnreachable(async () => {
      if (++tries < 3) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      return 'written';
    }, { delaysMs: [1, 1, 1] })).toBe('written');
    expect(tries).toBe(3);
  });
});
