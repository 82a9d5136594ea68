import { drizzle, type NodePgDatabase, type NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import type { PgDatabase } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import * as tables from './schema.ts';

export type Tables = typeof tables;
export type Db = NodePgDatabase<Tables>;
/** A database handle or an open transaction: every repository function takes either. */
export type Executor = PgDatabase<NodePgQueryResultHKT, Tables>;

export interface Database {
  readonly pool: pg.Pool;
  readonly db: Db;
  /** The PostgreSQL schema the tables live in (`public` unless a test schema was asked for). */
  readonly schema: string;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  readonly url: string;
  readonly poolMax?: number;
  /** Per-test schema: set as search_path on every connection at startup. */
  readonly schema?: string;
  /** Errors of pooled connections, idle or in use (e.g. the server went away); they never throw. */
  readonly onError?: (err: Error) => void;
  /** Who is connected, as pg_stat_activity shows it (`echo-agent daemon host:pid`); one set in database.url wins. */
  readonly applicationName?: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** How long getting a connection (a new one, or a free one from a busy pool) may take before the operation fails. */
const CONNECT_TIMEOUT_MS = 30_000;

export function assertSchemaName(schema: string): string {
  if (!IDENTIFIER.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
  return schema;
}

export function openDatabase(opts: OpenDatabaseOptions): Database {
  const schema = assertSchemaName(opts.schema ?? 'public');
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolMax ?? 10,
    // a server that does not answer (a partition, not a restart) fails a checkout instead of hanging every loop
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    ...(opts.applicationName ? { application_name: opts.applicationName.slice(0, 63) } : {}),
    // a startup parameter, so no query can run on a connection before it is set
    ...(opts.schema ? { options: `-c search_path=${schema}` } : {}),
    // awaited before the pool hands a new connection out; one that cannot answer it is closed, and the checkout fails
    ...(opts.applicationName ? { onConnect: (client: pg.ClientBase) => tagSchema(client, opts.applicationName!.slice(0, 63)) } : {}),
  });
  // the pool listens on idle connections only: a connection lost while checked out (a transaction open
  // when the server restarts) would emit an 'error' nobody hears, which ends the process. Each connection
  // reports its own; the pool's event repeats an idle one's and only has to be heard.
  pool.on('connect', (client) => client.on('error', (err) => opts.onError?.(err)));
  pool.on('error', () => {});
  const db = drizzle({ client: pool, schema: tables });
  let closed: Promise<void> | undefined;
  return { pool, db, schema, close: () => (closed ??= pool.end()) };
}

/**
 * Runs `read` on one snapshot of the database: a reader of many batches (verify, export) sees no
 * archive or append that commits while it reads, so it cannot report a half-done one as a break.
 */
export async function inSnapshot<T>(exec: Executor, read: (tx: Executor) => Promise<T>): Promise<T> {
  return exec.transaction(read, { isolationLevel: 'repeatable read', accessMode: 'read only' });
}

/**
 * A health probe's question to the database. A connection whose answer does not come within `limitMs` is
 * closed, not handed back: each probe of a hung server would otherwise keep one more until the pool is gone.
 */
export async function databaseAnswers(pool: pg.Pool, limitMs: number): Promise<void> {
  // pg reads query_timeout per query; @types/pg's QueryConfig does not list it
  const probe = { text: 'select 1', query_timeout: limitMs };
  await pool.query(probe);
}

/** What the daemon's connections are called: other replicas find each other by it. */
export const DAEMON_APPLICATION = 'echo-agent daemon';

/**
 * A named connection (a daemon's) adds the schema it serves to its name, `echo-agent daemon host:pid schema`, so
 * a daemon of another schema of the database is not taken for one of this deployment (the schema migrate() uses).
 * A name set in database.url is left as it is.
 */
async function tagSchema(client: pg.ClientBase, name: string): Promise<void> {
  const { schema } = await targetSchema(client, CONNECT_TIMEOUT_MS);
  // pg reads query_timeout per query; @types/pg's QueryConfig does not list it
  const tag = {
    text: 'select set_config(\'application_name\', left($1 || \' \' || $2, 63), false) where current_setting(\'application_name\') = $1',
    values: [name, schema], query_timeout: CONNECT_TIMEOUT_MS,
  };
  await client.query(tag);
}

/**
 * Where migrate() puts a connection's tables: its current schema, else the first its search_path names (one
 * not made yet: that migration makes it), else public. Also what the CLI checks is set up, and what a daemon's
 * connection name says it serves.
 */
export async function targetSchema(q: pg.ClientBase | pg.Pool, timeoutMs?: number): Promise<{ database: string; schema: string }> {
  const read = { text: 'select current_database() as database, current_schema() as current, current_setting(\'search_path\') as path', ...(timeoutMs ? { query_timeout: timeoutMs } : {}) };
  const { database, current, path } = (await (q as pg.ClientBase).query<{ database: string; current: string | null; path: string }>(read)).rows[0]!;
  return { database, schema: current ?? firstNamedSchema(path) ?? 'public' };
}

/** The first schema a search_path names (`"$user"` skipped), unquoted; null when it names none. */
export function firstNamedSchema(searchPath: string): string | null {
  for (const raw of searchPath.match(/"(?:[^"]|"")*"|[^,\s]+/g) ?? []) {
    const name = raw.startsWith('"') ? raw.slice(1, -1).replaceAll('""', '"') : raw.toLowerCase();
    if (name !== '$user' && name !== '') return name;
  }
  return null;
}

/**
 * The other daemons connected to this database now that serve the caller's schema, by the names their connections
 * carry (`echo-agent daemon host:pid schema`). A name without its schema (a daemon of an older release, or one cut
 * at PostgreSQL's 63 bytes) may be serving it, and counts.
 */
export async function otherDaemons(exec: Executor, mine: string): Promise<string[]> {
  // as the server keeps it: a long host name leaves a name cut at 63 bytes, which is still this daemon's
  mine = mine.slice(0, 63);
  const found = await exec.execute<{ name: string }>(sql`
    select distinct name from (
      select application_name as name, split_part(application_name, ' ', 4) as served, coalesce(current_schema(), 'public') as here
      from pg_stat_activity
      where datname = current_database() and application_name like ${`${DAEMON_APPLICATION} %`}
        and application_name <> ${mine} and left(application_name, ${mine.length + 1}) <> ${`${mine} `}) as daemons
    where served = '' or served = here or (octet_length(name) >= 63 and starts_with(here, served))
    order by 1`);
  return found.rows.map((r) => r.name);
}

/** The database clock: every replica agrees on it, whatever the hosts' clocks say. */
export async function databaseNow(exec: Executor): Promise<Date> {
  const res = await exec.execute<{ now: Date }>(sql`select date_trunc('milliseconds', clock_timestamp()) as now`);
  return new Date(res.rows[0]!.now);
}

/**
 * The deployment a connection belongs to: the database and schema holding echo-agent's tables. Every replica of
 * one deployment reads the same two names, whichever host name or pooler it reaches the server through.
 */
export interface Deployment {
  readonly database: string;
  readonly schema: string;
}

export async function deploymentOf(exec: Executor): Promise<Deployment> {
  const res = await exec.execute<{ database: string; schema: string | null }>(sql`select current_database() as database, current_schema() as schema`);
  const row = res.rows[0]!;
  return { database: row.database, schema: row.schema ?? 'public' };
}

/** The pg client under a drizzle handle: the pool, or the connection of an open transaction. */
function pgClientOf(exec: Executor): pg.Pool | pg.PoolClient {
  return (exec as unknown as { session: { client: pg.Pool | pg.PoolClient } }).session.client;
}

/**
 * A named statement, planned once per connection instead of on every call: on
 * the run path planning costs as much as executing. `text` must be the same for
 * a name every time, with unqualified table names (search_path picks the schema).
 */
export async function namedQuery<R extends Record<string, unknown>>(exec: Executor, name: string, text: string, values: readonly unknown[]): Promise<R[]> {
  const client = pgClientOf(exec);
  const run = async () => (await client.query<R>({ name: generation === 0 ? name : `${name}_g${generation}`, text, values: [...values] })).rows;
  try {
    return await run();
  } catch (err) {
    if (!isStalePlan(err)) throw err;
    // a migration changed what a prepared statement returns (`returning *` after ADD COLUMN): prepare anew under new names
    generation++;
    // outside a transaction nothing was aborted, so the call can be made again at once; a transaction's owner retries
    if (client instanceof pg.Pool) return run();
    throw err;
  }
}

/** Bumped each time PostgreSQL refuses a prepared statement whose result type changed under this process. */
let generation = 0;

const isStalePlan = (err: unknown) => (err as { code?: string } | null)?.code === '0A000'
  && /cached plan must not change result type/.test((err as Error).message);

/** One named statement and how to read its result: a state change the audit writer can send in the same statement as its record. */
export interface NamedStatement<T> {
  readonly name: string;
  /** A single INSERT, UPDATE or DELETE … RETURNING, parameters from $1, no WITH of its own, no `$` but its parameters. */
  readonly text: string;
  readonly values: readonly unknown[];
  readonly result: (rows: Record<string, unknown>[]) => T;
  /**
   * The one row it changes, such as `runs:<id>`. Given, statements of the same name that change different
   * rows may be sent as one (a row changed twice in one statement would keep only one of the changes).
   */
  readonly target?: string;
}

export async function runNamed<T>(exec: Executor, st: NamedStatement<T>): Promise<T> {
  return st.result(await namedQuery(exec, st.name, st.text, st.values));
}
