import { sql } from 'drizzle-orm';
import { DAEMON_APPLICATION, otherDaemons, type Executor } from './db.ts';
import type { MigrationReport } from './migrate.ts';
import { daemonOf } from '../queue/queue-tag.ts';

/** The schema a daemon's connection name says it serves (daemonConnectionName: `<name> <schema>`); '' for an older release's, which says none. */
const servedBy = (connectionName: string): string => connectionName.split(' ').slice(3).join(' ');

/**
 * The warning for a start that has just set up a new, empty deployment (every migration applied: the schema's
 * ledger was empty) while daemons serving other schemas of the database are connected: most likely a mistyped
 * search_path in database.url, which would otherwise start quietly with no jobs. Null when there is nothing to say.
 * `exec` must be the daemon's own pool (its search_path names the new schema).
 */
export async function newSchemaWarning(exec: Executor, migrated: Pick<MigrationReport, 'schema' | 'applied' | 'known'>): Promise<string | null> {
  if (migrated.known === 0 || migrated.applied.length < migrated.known) return null;
  const found = await exec.execute<{ name: string }>(sql`
    select distinct application_name as name from pg_stat_activity
    where datname = current_database() and application_name like ${`${DAEMON_APPLICATION} %`}`);
  // every daemon that serves, or may serve, this schema: this process's own connections, replicas started with it,
  // an older release's that names no schema. Asked after the list above, so one that connects meanwhile is in it.
  const mine = new Set(await otherDaemons(exec, ''));
  const bySchema = new Map<string, string[]>();
  for (const { name } of found.rows) {
    const schema = servedBy(name);
    if (schema === '' || mine.has(name)) continue;
    bySchema.set(schema, [...(bySchema.get(schema) ?? []), daemonOf(name)]);
  }
  if (bySchema.size === 0) return null;
  const others = [...bySchema].sort(([a], [b]) => a.localeCompare(b)).map(([schema, daemons]) => `schema ${schema} (${daemons.sort().join(', ')})`);
  return `set up schema ${migrated.schema} as a new, empty deployment (every migration applied), while daemons of `
    + `${others.join(' and ')} are connected to this database: a mistyped search_path in database.url's options? `
    + 'This daemon serves only the jobs of its own schema; if a new deployment was meant, ignore this';
}
