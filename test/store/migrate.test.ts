import { MIGRATION_COUNT } from '../support/migrations.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db.ts';

const made: TestDatabase[] = [];
afterAll(async () => {
  for (const d of made) await d.drop();
});

describe('migrate', () => {
  it('creates every table inside the connection schema, not in public', async () => {
    const d = await freshDatabase();
    made.push(d);
    const { rows } = await d.pool.query<{ table_name: string }>(
      'select table_name from information_schema.tables where table_schema = $1 order by 1', [d.schema]);
    expect(rows.map((r) => r.table_name)).toEqual(
      ['__drizzle_migrations', 'allowlist_records', 'approvals', 'audit_archives', 'audit_events', 'job_grants', 'jobs', 'knowledge_chunks', 'memories', 'runs',
        'skills', 'spills', 'todos', 'tool_effects', 'transcripts']);
    const fks = await d.pool.query<{ ref: string }>(`
      select distinct ccu.table_schema as ref from information_schema.constraint_column_usage ccu
      join information_schema.table_constraints tc on tc.constraint_name = ccu.constraint_name and tc.constraint_schema = ccu.constraint_schema
      where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = $1`, [d.schema]);
    expect(fks.rows.map((r) => r.ref)).toEqual([d.schema]);
  });

  it('is safe when several replicas migrate the same schema at once', async () => {
    const d = await freshDatabase({ migrate: false });
    made.push(d);
    const replicas = Array.from({ length: 4 }, () => openDatabase({ url: TEST_DATABASE_URL, poolMax: 2, schema: d.schema }));
    try {
      const results = await Promise.all(replicas.map((r) => migrate(r.pool, { schema: d.schema })));
      expect(results.map((r) => r.applied).sort()).toEqual([0, 0, 0, MIGRATION_COUNT]);
      const again = await migrate(replicas[0]!.pool);
      expect(again).toEqual({ schema: d.schema, applied: 0, unknown: [] });
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
  });
});
