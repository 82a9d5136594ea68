import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import type { PgDialect, PgSession } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { assertSchemaName } from './db.ts';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Advisory lock class for "migrating this schema"; the schema name is the second key. */
const MIGRATE_LOCK_CLASS = 0x6d696772; // 'migr'

export interface MigrateOptions {
  /** Target schema; defaults to the connection's current schema, else `public`. */
  readonly schema?: string;
  readonly migrationsFolder?: string;
}

/**
 * Applies drizzle/ with drizzle's migrator, under a session advisory lock, so any
 * number of replicas may start at once: one migrates, the others wait and find nothing to do.
 * The bookkeeping table lives in the target schema, so each schema migrates on its own.
 */
export async function migrate(pool: pg.Pool, opts: MigrateOptions = {}): Promise<{ schema: string; applied: number }> {
  const client = await pool.connect();
  try {
    const current = (await client.query<{ s: string | null }>('select current_schema() as s')).rows[0]?.s;
    const schema = assertSchemaName(opts.schema ?? current ?? 'public');
    await client.query('select pg_advisory_lock($1, hashtext($2))', [MIGRATE_LOCK_CLASS, schema]);
    try {
      await client.query(`create schema if not exists "${schema}"`);
      await client.query(`set search_path to "${schema}"`);
      const migrations = readMigrationFiles({ migrationsFolder: opts.migrationsFolder ?? MIGRATIONS_FOLDER }).map(unqualify);
      const table = `"${schema}"."__drizzle_migrations"`;
      const before = await countApplied(client, table);
      const db = drizzle({ client });
      // drizzle's node-postgres migrate() reads the files itself; we hand its dialect the unqualified copies
      const internals = db as unknown as { dialect: PgDialect; session: PgSession };
      await internals.dialect.migrate(migrations, internals.session, { migrationsFolder: '', migrationsSchema: schema });
      return { schema, applied: (await countApplied(client, table)) - before };
    } finally {
      await client.query('select pg_advisory_unlock($1, hashtext($2))', [MIGRATE_LOCK_CLASS, schema]).catch(() => {});
      await client.query('reset search_path').catch(() => {});
    }
  } finally {
    client.release();
  }
}

/** drizzle-kit writes `REFERENCES "public"."jobs"`; tables follow search_path instead. */
function unqualify(m: MigrationMeta): MigrationMeta {
  return { ...m, sql: m.sql.map((s) => s.replaceAll('"public".', '')) };
}

async function countApplied(client: pg.PoolClient, table: string): Promise<number> {
  try {
    return Number((await client.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]?.n ?? 0);
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return 0; // not created yet
    throw err;
  }
}
