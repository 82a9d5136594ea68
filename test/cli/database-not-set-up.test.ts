import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS_FOLDER } from '../../src/store/migrate.ts';
import { runCli } from '../support/cli.ts';
import { freshDatabase, TEST_DATABASE_URL } from '../support/db.ts';
import { MIGRATION_COUNT } from '../support/migrations.ts';

// Only the daemon and `migrate` set a database up. Any other command pointed at a schema no migration has set up
// (a typo in database.url's search_path, or a database nobody set up yet) says where it looked, and creates nothing:
// it would otherwise answer from a new, empty deployment, and queue runs there that no daemon ever takes.
const dir = mkdtempSync(join(tmpdir(), 'echo-not-set-up-'));
const made: string[] = [];

const configFor = (schema: string): NodeJS.ProcessEnv => {
  const file = join(dir, `${schema}.yaml`);
  writeFileSync(file, `database:\n  url: ${TEST_DATABASE_URL}?options=-c%20search_path%3D${schema}\n`);
  return { ECHO_AGENT_CONFIG: file };
};

async function admin<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

const schemaExists = async (schema: string) => (await admin('select 1 from pg_namespace where nspname = $1', [schema])).length > 0;
const tablesIn = async (schema: string) => Number((await admin<{ n: string }>('select count(*) as n from pg_tables where schemaname = $1', [schema]))[0]!.n);
const migrations = async (schema: string) => Number((await admin<{ n: string }>(`select count(*) as n from "${schema}"."__drizzle_migrations"`))[0]!.n);

afterAll(async () => {
  for (const s of made) await admin(`drop schema if exists "${s}" cascade`);
});

describe('a command pointed at a schema that does not exist (a typo in database.url)', () => {
  it.each([
    ['jobs', 'list'], ['jobs', 'run', 'nightly'], ['runs', 'list', '--json'], ['approvals', 'list'], ['audit', 'verify'],
  ])('%s %s refuses with exit 69, naming the database and schema, and does not create the schema', async (...args) => {
    const typo = `t_typo_${randomBytes(4).toString('hex')}`;
    made.push(typo);
    const r = await runCli(args, { env: configFor(typo) });
    expect(r.code, r.stderr).toBe(69);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`database.url: database "test", schema "${typo}" does not exist; nothing was created there.`);
    expect(r.stderr).toContain('A typo in database.url (its database name, or the search_path in its options)?');
    expect(r.stderr).toContain('run echo-agent migrate with this config');
    expect(await schemaExists(typo)).toBe(false);
  }, 60_000);
});

describe('a command pointed at a schema with no echo-agent tables', () => {
  it('refuses with exit 69 and makes no table there; `migrate` sets it up, and then the command answers', async () => {
    const empty = `t_empty_${randomBytes(4).toString('hex')}`;
    made.push(empty);
    await admin(`create schema "${empty}"`);
    const env = configFor(empty);
    const refused = await runCli(['jobs', 'list'], { env });
    expect(refused.code, refused.stderr).toBe(69);
    expect(refused.stderr).toContain(`schema "${empty}" has no echo-agent tables; nothing was created there.`);
    expect(await tablesIn(empty)).toBe(0);

    const set = await runCli(['migrate'], { env });
    expect(set.code, set.stderr).toBe(0);
    const listed = await runCli(['jobs', 'list', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  }, 60_000);
});

describe('a command pointed at a schema an older release set up', () => {
  // a `jobs list` of a build being tried out against a live schema must not upgrade it under the daemons serving it
  it('refuses with exit 69, naming the database, schema and pending migrations, and applies none; after `migrate` it answers', async () => {
    const older = await freshDatabase({ migrate: false });
    try {
      const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
      const folder = mkdtempSync(join(tmpdir(), 'echo-not-set-up-older-'));
      cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
      writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, -2) }));
      await migrate(older.pool, { schema: older.schema, migrationsFolder: folder });
      const pending = journal.entries.slice(-2).map((e) => e.tag);
      const env = configFor(older.schema);
      for (const args of [['jobs', 'list'], ['audit', 'verify']]) {
        const r = await runCli(args, { env });
        expect(r.code, r.stderr).toBe(69);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(`database.url: database "test", schema "${older.schema}" is behind this build: 2 migrations pending (${pending.join(', ')}).`);
        expect(r.stderr).toContain('run `echo-agent migrate` (the daemon also applies them at start)');
        expect(await migrations(older.schema)).toBe(MIGRATION_COUNT - 2);
      }
      const set = await runCli(['migrate'], { env });
      expect(set.code, set.stderr).toBe(0);
      const listed = await runCli(['jobs', 'list', '--json'], { env });
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([]);
    } finally {
      await older.drop();
    }
  }, 60_000);
});
