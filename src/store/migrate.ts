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
  /** Apply this build's migrations that are not recorded although a newer one is (see compareLedger's stranded); else refuse. */
  readonly applyMissing?: boolean;
}

/**
 * migrate.stranded: this build's migrations missing from a ledger whose newest row is newer (a hotfix build's, or
 * one deleted by hand). drizzle applies only what is newer than that row, so these would never be applied: refused,
 * never reported as up to date, since the daemon would run on a schema without them.
 */
export class StrandedMigrationsError extends Error {
  readonly rule = 'migrate.stranded';
  constructor(readonly schema: string, readonly stranded: readonly string[], readonly newest: string) {
    const n = stranded.length;
    super(`schema ${schema}: ${n} migration${n === 1 ? '' : 's'} of this build ${n === 1 ? 'is' : 'are'} not recorded (${stranded.join(', ')}), `
      + `while a newer one is (made ${newest}). drizzle applies only migrations newer than the newest recorded, so ${n === 1 ? 'it' : 'they'} would never be applied; `
      + 'most likely a build with migrations of its own (a hotfix) migrated this schema. Nothing was changed. Check that '
      + `${n === 1 ? 'it does' : 'they do'} not clash with that build's migrations, then run \`echo-agent migrate --apply-missing\` with this config `
      + '(applies them in one transaction and records them); or run a build that holds every recorded migration');
    this.name = 'StrandedMigrationsError';
  }
}

/** What a migration of one schema did: the names (drizzle-kit tags) of the migrations it applied, in order. */
export interface MigrationReport {
  readonly schema: string;
  readonly applied: readonly string[];
  /** How many migrations the folder holds. */
  readonly known: number;
  /** The ledger's migrations this build does not know (a newer release's): when each was made (ISO), oldest first. */
  readonly unknown: readonly string[];
}

/**
 * Applies drizzle/ with drizzle's migrator, under a session advisory lock, so any
 * number of replicas may start at once: one migrates, the others wait and find nothing to do.
 * The bookkeeping table lives in the target schema, so each schema migrates on its own.
 */
export async function migrate(pool: pg.Pool, opts: MigrateOptions = {}): Promise<{ schema: string; applied: number; unknown: readonly string[] }> {
  const report = await migrateReporting(pool, opts);
  return { schema: report.schema, applied: report.applied.length, unknown: report.unknown };
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
      const ledger = await recorded(client, schema);
      const { pending, unknown, stranded } = compareLedger(migrations.map((m) => ({ when: m.folderMillis, tag: tags.get(m.folderMillis) ?? String(m.folderMillis) })), ledger);
      if (stranded.length > 0 && !opts.applyMissing) throw new StrandedMigrationsError(schema, stranded, newestRecorded(ledger));
      if (stranded.length > 0) await applyStranded(client, migrations.filter((m) => stranded.includes(tags.get(m.folderMillis) ?? String(m.folderMillis))), schema);
      const db = drizzle({ client });
      // drizzle's node-postgres migrate() reads the files itself; we hand its dialect the unqualified copies
      const internals = db as unknown as { dialect: PgDialect; session: PgSession };
      await internals.dialect.migrate(migrations, internals.session, { migrationsFolder: '', migrationsSchema: schema });
      return { schema, applied: [...stranded, ...pending], known: migrations.length, unknown };
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

/** How a schema's ledger compares with the migrations this build knows. */
export interface MigrationStatus extends Setup {
  /**
   * Tags of the migrations `migrate` would apply, in order, and the stranded ones first: a command refuses a schema
   * with any (it lacks them), and `migrate` then says why they need --apply-missing.
   */
  readonly pending: readonly string[];
  /** This build's migrations missing while a newer one is recorded (compareLedger). */
  readonly stranded: readonly string[];
  /** The ledger's migrations this build does not know (a newer release's): when each was made (ISO), oldest first. */
  readonly unknown: readonly string[];
  /** How many migrations this build knows. */
  readonly known: number;
}

/**
 * The setup, and what a migration would apply or this build does not know, read without changing anything and
 * with SELECT alone: a read-only role can ask, and a command can refuse a schema it would have to migrate.
 */
export async function migrationStatus(pool: pg.Pool, opts: Pick<MigrateOptions, 'migrationsFolder'> = {}): Promise<MigrationStatus> {
  const { database, schema } = await targetSchema(pool);
  const found = (await pool.query<{ exists: boolean; ledger: boolean }>(
    'select exists(select 1 from pg_namespace where nspname = $1) as exists, to_regclass(format(\'%I.%I\', $1::text, \'__drizzle_migrations\')) is not null as ledger',
    [schema])).rows[0]!;
  const rows = found.ledger ? await recorded(pool, schema) : [];
  const known = [...journalTags(opts.migrationsFolder ?? MIGRATIONS_FOLDER)].map(([when, tag]) => ({ when, tag }));
  const compared = compareLedger(known, rows);
  return { database, schema, schemaExists: found.exists, migrations: rows.length, known: known.length, ...compared, pending: [...compared.stranded, ...compared.pending] };
}

/**
 * Pending: what drizzle applies, every known migration newer than the newest recorded. Stranded: known ones not
 * recorded and not newer than it, which drizzle never applies (a newer or unknown row recorded after them).
 * Unknown: recorded ones no known migration made.
 */
export function compareLedger(known: readonly { when: number; tag: string }[], recordedAt: readonly (number | null)[]): { pending: string[]; unknown: string[]; stranded: string[] } {
  const last = recordedAt.reduce<number | null>((max, t) => (t !== null && (max === null || t > max) ? t : max), null);
  const ours = new Set(known.map((m) => m.when));
  const seen = new Set(recordedAt);
  return {
    pending: known.filter((m) => last === null || last < m.when).map((m) => m.tag),
    stranded: known.filter((m) => last !== null && m.when <= last && !seen.has(m.when)).map((m) => m.tag),
    unknown: recordedAt.filter((t) => t === null || !ours.has(t)).sort((a, b) => (a ?? 0) - (b ?? 0)).map((t) => (t === null ? 'undated' : new Date(t).toISOString())),
  };
}

/** When the newest recorded migration was made (ISO), for the stranded refusal. */
function newestRecorded(ledger: readonly (number | null)[]): string {
  const last = Math.max(...ledger.filter((t): t is number => t !== null));
  return new Date(last).toISOString();
}

/** --apply-missing: the stranded migrations, oldest first, each recorded as drizzle records one; all or none. */
async function applyStranded(client: pg.PoolClient, list: readonly MigrationMeta[], schema: string): Promise<void> {
  await client.query('begin');
  try {
    for (const m of list) {
      for (const stmt of m.sql) if (stmt.trim()) await client.query(stmt);
      await client.query(`insert into "${schema}"."__drizzle_migrations" ("hash", "created_at") values ($1, $2)`, [m.hash, m.folderMillis]);
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

/** The warning for a schema with migrations this build does not know, for the daemon's start and any command. */
export function unknownMigrationsWarning(s: { schema: string; unknown: readonly string[] }): string {
  const n = s.unknown.length;
  const made = n === 1 ? `made ${s.unknown[0]}` : `made ${s.unknown[0]} to ${s.unknown[n - 1]}`;
  return `schema ${s.schema} has ${n} migration${n === 1 ? '' : 's'} this build does not know (${made}): a newer release migrated it `
    + '(a rollback, or replicas of different releases). This build runs without them; see that release\'s notes for what a rollback needs';
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

/** created_at of every migration recorded, as drizzle wrote it (its folderMillis); none before the first. */
async function recorded(q: pg.PoolClient | pg.Pool, schema: string): Promise<(number | null)[]> {
  // looked up first: a failed select would log an ERROR in the server's log on every first start
  const ledger = await q.query<{ present: boolean }>(`select to_regclass(format('%I.%I', $1::text, '__drizzle_migrations')) is not null as present`, [schema]);
  if (!ledger.rows[0]?.present) return [];
  const rows = (await q.query<{ created_at: string | null }>(`select created_at from "${schema.replaceAll('"', '""')}"."__drizzle_migrations"`)).rows;
  return rows.map((r) => (r.created_at == null ? null : Number(r.created_at)));
}
