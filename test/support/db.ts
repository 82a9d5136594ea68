import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';

/** PostgreSQL on this machine: trust auth, database `test`. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase extends Database {
  readonly url: string;
  /** Closes the pool and drops the schema. */
  drop(): Promise<void>;
}

/** A fresh, migrated schema `t_<random>` of its own, so test files never see each other's rows. */
export async function freshDatabase(opts: { poolMax?: number; migrate?: boolean } = {}): Promise<TestDatabase> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await admin(`create schema "${schema}"`);
  const database = openDatabase({ url: TEST_DATABASE_URL, poolMax: opts.poolMax ?? 5, schema });
  if (opts.migrate !== false) await migrate(database.pool, { schema });
  return {
    ...database,
    url: TEST_DATABASE_URL,
    async drop() {
      await database.close();
      await admin(`drop schema if exists "${schema}" cascade`);
    },
  };
}

/** vitest hooks: one fresh schema for the whole file. */
export function useTestDatabase(opts: { poolMax?: number } = {}): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await freshDatabase(opts);
  });
  afterAll(async () => {
    await database?.drop();
  });
  return () => {
    if (!database) throw new Error('the test database is only available inside tests');
    return database;
  };
}

/** One statement on a connection of its own, outside any test schema: roles, databases. */
export async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Raw SQL with the append-only triggers out of the way, as an attacker with table rights would. */
export async function tamper(d: Database, ...statements: string[]): Promise<void> {
  const client = await d.pool.connect();
  try {
    await client.query('set session_replication_role = replica');
    for (const s of statements) await client.query(s);
  } finally {
    await client.query('reset session_replication_role');
    client.release();
  }
}

/**
 * A database of the calling test file's own (`<prefix>_<random>`), made before its tests and dropped after them: for
 * tests of what is asked of a whole database (which daemons are connected), which other files' daemons would disturb.
 */
export function useOwnDatabase(prefix: string): { readonly name: string; readonly url: string } {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const url = TEST_DATABASE_URL.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
  beforeAll(() => admin(`create database ${name}`));
  afterAll(() => admin(`drop database if exists ${name} with (force)`));
  return { name, url };
}

