import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS_FOLDER } from '../../src/store/migrate.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';

const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
const WITHDRAWN = journal.entries.findIndex((e) => e.tag === '0013_approvals_withdrawn');

const made: TestDatabase[] = [];
afterAll(async () => {
  for (const d of made) await d.drop();
});

describe('migration 0013 (approvals can be withdrawn)', () => {
  it('records as withdrawn the requests an earlier build ended before their expiry, and leaves real expiries alone', async () => {
    const d = await freshDatabase({ migrate: false });
    made.push(d);
    // the schema as the build before this migration left it
    const folder = mkdtempSync(join(tmpdir(), 'echo-migrate-withdrawn-'));
    cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, WITHDRAWN) }));
    await migrate(d.pool, { schema: d.schema, migrationsFolder: folder });
    const insert = (id: string, expires: string, state: string) => d.pool.query(
      `insert into approvals (id, call_hash, tool, args, risk, channel, state, expires_at) values ($1, 'h', 'exec', '{}', 'exec', 'cli', $3, now() + $2::interval)`, [id, expires, state]);
    await insert('apr_ctrl_c', '1 hour', 'expired');
    await insert('apr_timed_out', '-1 hour', 'expired');
    await insert('apr_waiting', '1 hour', 'pending');

    await migrate(d.pool, { schema: d.schema });
    const { rows } = await d.pool.query<{ id: string; state: string }>('select id, state from approvals order by id');
    expect(rows).toEqual([
      { id: 'apr_ctrl_c', state: 'withdrawn' },
      { id: 'apr_timed_out', state: 'expired' },
      { id: 'apr_waiting', state: 'pending' },
    ]);
  });
});
