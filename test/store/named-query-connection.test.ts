import { describe, expect, it } from 'vitest';
import { namedQuery, openDatabase } from '../../src/store/db.ts';
import { useTestDatabase } from '../support/db.ts';

// The audit writer expects some of its appends to be refused (another writer took the seq) and writes them again:
// such an answer from the server must not cost the connection, or every run after a CLI write reconnects.
const database = useTestDatabase();

describe('a named statement on the pool', () => {
  it('keeps its connection when the server refuses the statement, and drops one that was lost', async () => {
    const { url, schema, pool: admin } = database();
    await admin.query(`create table "${schema}".nq_keys (k int primary key)`);
    const d = openDatabase({ url, schema, poolMax: 1 });
    try {
      const pid = async () => Number((await namedQuery<{ pid: number }>(d.db, 'nq_pid', 'select pg_backend_pid() as pid', []))[0]!.pid);
      const first = await pid();
      await namedQuery(d.db, 'nq_insert', 'insert into nq_keys (k) values ($1)', [1]);
      await expect(namedQuery(d.db, 'nq_insert', 'insert into nq_keys (k) values ($1)', [1])).rejects.toMatchObject({ code: '23505' });
      expect(await pid()).toBe(first);
      expect(d.pool.totalCount).toBe(1);

      await admin.query('select pg_terminate_backend($1)', [first]);
      await new Promise((r) => setTimeout(r, 100));
      // the pool noticed (an idle connection's error) or the next statement fails on it; either way a new one serves
      const next = await pid().catch(() => pid());
      expect(next).not.toBe(first);
    } finally {
      await d.close();
    }
  });
});
