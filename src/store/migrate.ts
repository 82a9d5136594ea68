import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import type { PgDialect, PgSession } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { assertSchemaName, targetSchema } from './db.ts';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Advisory lock class for "migrating this schema"; the schema name is the second key. */
const MIGRATE_LOCK_CLASS = 0x6d696772; // 'migr'

export interface MigrateOptions {
  /** Target schema; defaults to the connection's current schema, else `public`. */
  readonly schema?: string;
  readonly migrationsFolder?: string;
}

/** What a migration of one schema did: the names (drizzle-kit tags) of the migrations it applied, in order. */
export interface MigrationReport {
  readonly schema: string;
  readonly applied: readonly string[];
  /** How many migrations the folder holds. */
  readonly known: number;
}

/**
 * Applies drizzle/ with drizzle's migrator, under a session advisory lock, so any
 * number of replicas may start at once: one migrates, the others wait and find nothing to do.
 * The bookkeeping table lives in the target schema, so each schema migrates on its own.
 */
export async function migrate(pool: pg.Pool, opts: MigrateOptions = {}): Promise<{ schema: string; applied: number }> {
  const report = await migrateReporting(pool, opts);
  return { schema: report.schema, applied: report.applied.length };
}

/** Migrates like migrate(), and names the migrations this call applied. */
export async function migrateReporting(pool: pg.Pool, opts: MigrateOptions = {}): Promise<MigrationReport> {
  const client = await pool.connect();
  try {
    // a search_path naming only schemas not made yet: its first is where the tables go (and what the pool will read), not public
    const schema = assertSchemaName(opts.schema ?? (await targetSchema(client)).schema);
    await client.query('select pg_advisory_lock($1, hashtext($2))', [MIGRATE_LOCK_CLASS, schema]);
    try {
      await client.query(`create schema if not exists "${schema}"`);
      await client.query(`set search_path to "${schema}"`);
      const folder = opts.migrationsFolder ?? MIGRATIONS_FOLDER;
      const migrations = readMigrationFiles({ migrationsFolder: folder }).map(unqualify);
      const tags = journalTags(folder);
      const table = `"${schema}"."__drizzle_migrations"`;
      // drizzle applies, in one transaction, every migration newer than the newest one recorded
      const last = await lastApplied(client, table);
      const pending = migrations.filter((m) => last === null || last < m.folderMillis).map((m) => tags.get(m.folderMillis) ?? String(m.folderMillis));
      const db = drizzle({ client });
      // drizzle's node-postgres migrate() reads the files itself; we hand its dialect the unqualified copies
      const internals = db as unknown as { dialect: PgDialect; session: PgSession };
      await internals.dialect.migrate(migrations, internals.session, { migrationsFolder: '', migrationsSchema: schema });
      return { schema, applied: pending, known: migrations.length };
    } finally {
      await client.query('select pg_advisory_unlock($1, hashtext($2))', [MIGRATE_LOCK_CLASS, schema]).catch(() => {});
      await client.query('reset search_path').catch(() => {});
    }
  } finally {
    client.release();
  }
}

/** Where a connection's tables are, as migrate() would place them, and whether a migration has set that schema up. */
export interface Setup {
  readonly database: string;
  readonly schema: string;
  readonly schemaExists: boolean;
  /** How many migrations the schema's ledger records: 0 before the first migration (no echo-agent tables). */
  readonly migrations: number;
}

/** Reads the setup without changing anything: no schema or table is made. */
export async function setupOf(pool: pg.Pool): Promise<Setup> {
  const { database, schema } = await targetSchema(pool);
  const found = (await pool.query<{ exists: boolean; ledger: boolean }>(
    'select exists(select 1 from pg_namespace where nspname = $1) as exists, to_regclass(format(\'%I.%I\', $1::text, \'__drizzle_migrations\')) is not null as ledger',
    [schema])).rows[0]!;
  const migrations = found.ledger ? Number((await pool.query<{ n: string }>(`select count(*) as n from "${schema.replaceAll('"', '""')}"."__drizzle_migrations"`)).rows[0]!.n) : 0;
  return { database, schema, schemaExists: found.exists, migrations };
}


/** drizzle-kit's journal: each migration's `when` (drizzle's folderMillis) to its tag, e.g. `0000_init`. */
function journalTags(folder: string): Map<number, string> {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number; tag: string }[] };
  return new Map(journal.entries.map((e) => [e.when, e.tag]));
}

/** drizzle-kit writes `REFERENCES "public"."jobs"`; tables follow search_path instead. */
function unqualify(m: MigrationMeta): MigrationMeta {
  return { ...m, sql: m.sql.map((s) => s.replaceAll('"public".', '')) };
}

/** created_at of the newest migration recorded, as drizzle reads it; null before the first. */
async function lastApplied(client: pg.PoolClient, table: string): Promise<number | null> {
  try {
    const row = (await client.query<{ created_at: string | null }>(`select created_at from ${table} order by created_at desc limit 1`)).rows[0];
    return row?.created_at == null ? null : Number(row.created_at);
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return null; // not created yet
    throw err;
  }
}
