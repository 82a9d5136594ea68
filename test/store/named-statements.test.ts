import { describe, expect, it } from 'vitest';
import { namedQuery, openDatabase } from '../../src/store/db.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('named statements across a migration', () => {
  it('a statement prepared before a column was added still runs after it, with the new column', async () => {
    const t = database();
    // one connection, so the second call meets the statement the first one prepared
    const single = openDatabase({ url: t.url, schema: t.schema, poolMax: 1 });
    try {
      await single.pool.query('create table migrating (id int primary key)');
      await single.pool.query('insert into migrating values (1)');
      const q = () => namedQuery(single.db, 'echo_test_migrating', 'select * from migrating', []);
      expect(await q()).toEqual([{ id: 1 }]);
      await t.pool.query("alter table migrating add column note text not null default 'n'");
      expect(await q()).toEqual([{ id: 1, note: 'n' }]);
      expect(await q()).toEqual([{ id: 1, note: 'n' }]);
    } finally {
      await single.close();
    }
  });
});
