import { createHash } from 'node:crypto';
import type { QueueBackend } from './run-queue.ts';

/**
 * Which queue a daemon consumes, short enough for its connection's name (db.ts daemonConnectionName):
 * `redis.1a2b3c` or `pg.1a2b3c`, the backend and 24 bits of a hash of what makes the queue (the Redis server and
 * database, or the queue schema, and queue.prefix). Replicas of one schema with different tags consume different
 * queues: each runs only what reaches its own, and a hand-off through the other waits for a reconciler.
 */
export function queueTag(backend: QueueBackend, prefix: string): string {
  const where = backend.kind === 'redis' ? redisServer(backend.url) : backend.schema;
  const hash = createHash('sha256').update(`${backend.kind}\n${where}\n${prefix}`).digest('hex').slice(0, 6);
  return `${backend.kind === 'redis' ? 'redis' : 'pg'}.${hash}`;
}

/** host:port/db of a Redis URL, without its credentials (which change with a rotation, not the queue). */
function redisServer(url: string): string {
  try {
    const u = new URL(url);
    const db = /^\/(\d+)/.exec(u.pathname)?.[1] ?? '0';
    return `${u.hostname.toLowerCase()}:${u.port || '6379'}/${db}`;
  } catch {
    return url;
  }
}

/** The tag a daemon's connection name carries after its `host:pid`, or null (an older release's name carries none). */
export function queueTagOf(connectionName: string): string | null {
  return /\/((?:redis|pg)\.[0-9a-f]{6})$/.exec(connectionName.split(' ')[2] ?? '')?.[1] ?? null;
}

/** The daemon as a person reads it (`web-1:42`), without its schema or queue tag. */
export function daemonOf(connectionName: string): string {
  return (connectionName.split(' ')[2] ?? connectionName).replace(/\/(?:redis|pg)\.[0-9a-f]{6}$/, '');
}

/** A tag's backend, in the words of its setting. */
export function backendWords(tag: string): string {
  return tag.startsWith('redis.') ? 'Redis (queue.redis_url)' : 'BullMQ\'s PostgreSQL backend (no queue.redis_url)';
}

/**
 * Daemons whose names say they consume another queue than `mine`; names with no tag (older releases) are not
 * counted, since which queue they use is not known. Grouped for one sentence: `web-2:77 (Redis (queue.redis_url))`.
 */
export function otherQueues(names: readonly string[], mine: string): { daemon: string; tag: string }[] {
  return names.flatMap((n) => {
    const tag = queueTagOf(n);
    return tag !== null && tag !== mine ? [{ daemon: daemonOf(n), tag }] : [];
  });
}

/**
 * replicas.queue_mismatch: the warning for daemons of one schema that consume another queue than this process's
 * (`mine`): runs are not lost, but each replica runs only what reaches its own queue.
 */
export function queueMismatchWarning(others: readonly { daemon: string; tag: string }[], mine: string): string {
  const sameKind = others.every((o) => o.tag.split('.')[0] === mine.split('.')[0]);
  const list = others.map((o) => `${o.daemon} (${sameKind ? `queue ${o.tag}` : backendWords(o.tag)})`).join(', ');
  const what = sameKind
    ? `another queue than this one (${mine}: queue.prefix, or the Redis server or database of queue.redis_url, differ)`
    : `another queue backend than this one, ${backendWords(mine)}`;
  return `daemon${others.length === 1 ? '' : 's'} of this schema ${list} ${others.length === 1 ? 'consumes' : 'consume'} ${what}. `
    + 'Each replica runs only the runs that reach its own queue: a hand-off through the other queue (jobs run with the other config, '
    + 'a fire or retry of a replica that stops) waits for a reconciler (up to daemon.reconcile_seconds), and /healthz and metrics show two queues. '
    + 'Give every replica and the CLI the same queue settings';
}
