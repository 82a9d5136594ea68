import { drizzle, type NodePgDatabase, type NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import type { PgDatabase } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createHash } from 'node:crypto';
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
  /** Who is connected, as pg_stat_activity shows it (`echo-agent daemon host:pid/<queue tag>`, queue-tag.ts); one set in database.url wins. */
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
  const named = opts.applicationName;
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolMax ?? 10,
    // a server that does not answer (a partition, not a restart) fails a checkout instead of hanging every loop
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    ...(named ? { application_name: startupName(named) } : {}),
    // a startup parameter, so no query can run on a connection before it is set
    ...(opts.schema ? { options: `-c search_path=${schema}` } : {}),
    // awaited before the pool hands a new connection out; one that cannot answer it is closed, and the checkout fails
    ...(named ? { onConnect: (client: pg.ClientBase) => tagSchema(client, named) } : {}),
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
 * A named connection (a daemon's) adds the schema it serves to its name (daemonConnectionName), so a daemon of
 * another schema of the database is not taken for one of this deployment (the schema migrate() uses).
 * A name set in database.url is left as it is.
 */
async function tagSchema(client: pg.ClientBase, name: string): Promise<void> {
  const { schema } = await targetSchema(client, CONNECT_TIMEOUT_MS);
  // pg reads query_timeout per query; @types/pg's QueryConfig does not list it
  const tag = {
    text: 'select set_config(\'application_name\', $2, false) where current_setting(\'application_name\') = $1',
    values: [startupName(name), daemonConnectionName(name, schema)], query_timeout: CONNECT_TIMEOUT_MS,
  };
  await client.query(tag);
}

/** What pg_stat_activity keeps of a connection's name: NAMEDATALEN - 1 bytes, the rest cut. */
const NAME_BYTES = 63;
/** A schema a name can carry as it is: printable ASCII (kept as it is by the server) without space or `~` (the hash's mark). */
const PLAIN_SCHEMA = /^[!-}]+$/;
/** A schema carried as its first characters and a hash (hashedSchema): `echo_staging_eu_~1f0c9a33be`. */
const HASHED_SCHEMA = /^[!-}]{0,16}~[0-9a-f]{10}$/;

/**
 * The name a daemon's connection carries: `<name> <schema>`, or, for a schema that is long or not plain, its first
 * 16 characters, `~` and 10 hex digits of its SHA-256 (`echo-agent daemon web-1:42 echo_staging_eu_~1f0c9a33be`).
 * The name is cut (keeping its `:pid`) so the whole fits 63 bytes and the server never cuts the schema, and a plain
 * schema ends a name of 62 bytes at most: one of 63 ending in a plain schema is an older release's, maybe cut.
 */
export function daemonConnectionName(name: string, schema: string): string {
  const hashed = hashedSchema(schema);
  const plain = PLAIN_SCHEMA.test(schema) && (asciiName(name).length + 1 + schema.length < NAME_BYTES || schema.length <= hashed.length);
  const served = plain ? schema : hashed;
  // a plain schema leaves the 63rd byte unused: servesSchema tells this release's names from older ones' by it
  const room = (plain ? NAME_BYTES - 1 : NAME_BYTES) - 1 - served.length;
  return `${cutName(asciiName(name), room)} ${served}`;
}

/**
 * Whether a daemon's connection name (as pg_stat_activity shows it) says it serves `schema`: exactly, for names
 * this release makes. Of an older release's, one that names no schema may serve it, and so may one cut by the
 * server at 63 bytes whose schema part begins `schema`: what was cut away is not known.
 */
function servesSchema(connectionName: string, schema: string): boolean {
  const served = connectionName.split(' ').slice(3).join(' ');
  if (served === '') return true;
  if (HASHED_SCHEMA.test(served)) return served === hashedSchema(schema);
  return served === schema || (Buffer.byteLength(connectionName) >= NAME_BYTES && schema.startsWith(served));
}

/** The name a connection starts with, before tagSchema adds its schema: as the server would keep it. */
function startupName(name: string): string {
  return cutName(asciiName(name), NAME_BYTES);
}

/** Its first 16 characters, readable (`_` for what is not plain), and 40 bits of its SHA-256, which two schemas of one database share only by a one-in-a-trillion chance. */
function hashedSchema(schema: string): string {
  const readable = [...schema].map((c) => (PLAIN_SCHEMA.test(c) ? c : '_')).join('').slice(0, 16);
  return `${readable}~${createHash('sha256').update(schema).digest('hex').slice(0, 10)}`;
}

/** The server replaces what is not printable ASCII in a name; replaced here first, one `?` a character, lengths are known. */
function asciiName(name: string): string {
  return name.replace(/[^ -~]/gu, '?');
}

/**
 * At most `max` characters, the head cut rather than a trailing `:pid` and queue tag (`:42/pg.1a2b3c`, queue-tag.ts):
 * replicas on one long host name stay apart, and each still says which queue it consumes.
 */
function cutName(name: string, max: number): string {
  if (name.length <= max) return name;
  const pid = /:\d+(?:\/[a-z]+\.[0-9a-f]{6})?$/.exec(name)?.[0] ?? '';
  return pid.length < max / 2 ? name.slice(0, max - pid.length) + pid : name.slice(0, max);
}

/**
 * Where migrate() puts a connection's tables: its current schema, else the first its search_path names (one
 * not made yet: that migration makes it), else public. Also what the CLI checks is set up, and what a daemon's
 * connection name says it serves.
 */
export async function targetSchema(q: pg.ClientBase | pg.Pool, timeoutMs?: number): Promise<{ database: string; schema: string }> {
  const read = { text: 'select current_database() as database, current_schema() as current, current_setting(\'search_path\') as path', ...(timeoutMs ? { query_timeout: timeoutMs } : {}) };
  const { database, current, path } = (await (q as pg.ClientBase).query<{ database: string; current: string | null; path: string }>(read)).rows[0]!;
  return { database, schema: schemaOfSettings(current, path) };
}

/** targetSchema's rule, from a connection's current_schema() and search_path. */
function schemaOfSettings(current: string | null, searchPath: string): string {
  return current ?? firstNamedSchema(searchPath) ?? 'public';
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
 * The other daemons connected to this database now that serve the caller's schema (targetSchema's), by the names
 * their connections carry (daemonConnectionName; servesSchema). `mine`: the name this process's connections were
 * opened with, which are left out; '' leaves none out.
 */
export async function otherDaemons(exec: Executor, mine: string): Promise<string[]> {
  const found = await exec.execute<{ name: string; current: string | null; path: string }>(sql`
    select distinct application_name as name, current_schema() as current, current_setting('search_path') as path
    from pg_stat_activity
    where datname = current_database() and application_name like ${`${DAEMON_APPLICATION} %`}
    order by 1`);
  const first = found.rows[0];
  if (!first) return [];
  const here = schemaOfSettings(first.current, first.path);
  // this process's connections: tagged, or (for a moment after connecting) not yet
  const own = new Set(mine ? [startupName(mine), daemonConnectionName(mine, here)] : []);
  return found.rows.map((r) => r.name).filter((name) => !own.has(name) && servesSchema(name, here));
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
  const query = () => ({ name: generation === 0 ? name : `${name}_g${generation}`, text, values: [...values] });
  const run = async () => (client instanceof pg.Pool ? await keepingConnection(client, query()) : (await client.query<R>(query())).rows) as R[];
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

/**
 * One statement on a pooled connection that goes back to the pool after an error the server answered with. pg-pool's
 * own query() discards the connection on any error: an expected one (the audit writer's seq taken by another writer,
 * on every run after a CLI write or beside another replica) would cost a reconnect and every named statement prepared
 * again, and leave an idle daemon with no connection for a moment. A lost or broken connection is still discarded.
 */
async function keepingConnection(pool: pg.Pool, query: pg.QueryConfig): Promise<Record<string, unknown>[]> {
  const conn = await pool.connect();
  try {
    const { rows } = await conn.query(query);
    conn.release();
    return rows;
  } catch (err) {
    conn.release(serverAnswered(err) ? undefined : (err as Error));
    throw err;
  }
}

/** An error the server sent for a statement, on a connection that stays usable (not a FATAL that ends the session). */
const serverAnswered = (err: unknown): boolean => err instanceof pg.DatabaseError && err.severity !== 'FATAL' && err.severity !== 'PANIC';

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
