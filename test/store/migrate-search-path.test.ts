import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { firstNamedSchema } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { TEST_DATABASE_URL } from '../support/db.ts';

// An operator keeps echo-agent's tables in a schema of a shared database by setting search_path in database.url.
// Before the schema exists, current_schema() is NULL: migrating into public then left the daemon's own
// connections, which read the named schema, without tables ("Failed query: select … from runs").
describe('migrating through a database.url whose search_path names a schema not made yet', () => {
  it('creates that schema and puts the tables there, where the connections look for them', async () => {
    const schema = `sp_new_${randomBytes(4).toString('hex')}`;
    const database = openDatabase({ url: `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}` });
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      expect((await database.pool.query<{ s: string | null }>('select current_schema() as s')).rows[0]!.s).toBeNull();
      expect(await migrate(database.pool)).toMatchObject({ schema });
      // the daemon's own connections (search_path from the URL) now find the tables
      const { rows } = await database.pool.query<{ n: number }>('select count(*)::int as n from jobs');
      expect(rows[0]!.n).toBe(0);
      expect((await admin.query<{ t: string | null }>(`select to_regclass('"${schema}".runs')::text as t`)).rows[0]!.t).not.toBeNull();
    } finally {
      await database.close();
      await admin.query(`drop schema if exists "${schema}" cascade`);
      await admin.end();
    }
  });

  it.each([
    ['"$user", public', 'public'],
    ['noschema_here', 'noschema_here'],
    ['"$user",Tenant_A, public', 'tenant_a'],
    ['"Tenant ""B""", public', 'Tenant "B"'],
    ['', null],
    ['"$user"', null],
  ])('search_path %j names %j first', (path, expected) => {
    expect(firstNamedSchema(path)).toBe(expected);
  });
});
