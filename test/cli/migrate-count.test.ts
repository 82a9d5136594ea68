import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS_FOLDER } from '../../src/store/migrate.ts';
import { runCli } from '../support/cli.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';

const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
const TAGS = journal.entries.map((e) => e.tag);

let database: TestDatabase;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // a schema nothing has migrated yet, as on a fresh database
  database = await freshDatabase({ migrate: false });
  const config = join(mkdtempSync(join(tmpdir(), 'echo-migrate-count-')), 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database.schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

afterAll(async () => {
  await database?.drop();
});

describe('echo-agent migrate', () => {
  it('names the migrations it applied on a fresh schema, and then says up to date', async () => {
    const first = await runCli(['migrate', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ schema: database.schema, applied: TAGS.length, migrations: TAGS });
    const { rows } = await database.pool.query<{ n: string }>(`select count(*) as n from "${database.schema}"."__drizzle_migrations"`);
    expect(Number(rows[0]!.n)).toBe(TAGS.length);

    const again = await runCli(['migrate', '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ schema: database.schema, applied: 0, migrations: [] });
    const text = await runCli(['migrate'], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(`schema ${database.schema}: up to date (${TAGS.length} migrations, none pending)\n`);
  });

  it('applies and names only the pending ones, in text too', async () => {
    // a schema the build before the latest migration migrated: drizzle/ without its last entry
    const older = await freshDatabase({ migrate: false });
    try {
      const folder = mkdtempSync(join(tmpdir(), 'echo-migrate-count-older-'));
      cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
      writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, -1) }));
      expect((await migrate(older.pool, { schema: older.schema, migrationsFolder: folder })).applied).toBe(TAGS.length - 1);
      const config = join(folder, 'echo-agent.yaml');
      writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${older.schema}\n`);
      const r = await runCli(['migrate'], { env: { ECHO_AGENT_CONFIG: config } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`schema ${older.schema}: applied 1 of ${TAGS.length} migrations: ${TAGS[TAGS.length - 1]}\n`);
    } finally {
      await older.drop();
    }
  });
});
