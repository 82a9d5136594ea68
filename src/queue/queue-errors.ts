import { lostConnection } from '../store/pg-errors.ts';
import { DependencyUnavailableError } from '../util/dependency-error.ts';
import { redactText } from '../util/redact.ts';
import type { QueueBackend } from './run-queue.ts';

/**
 * The queue as the operator's config names it, with the address but never the URL's credentials (I11):
 * `the queue (queue.redis_url 10.0.0.5:6379)`.
 */
export function queueNamed(backend: QueueBackend): string {
  if (backend.kind === 'postgres') return 'the queue (BullMQ\'s PostgreSQL backend, in the database)';
  let address = 'as configured';
  try {
    const u = new URL(backend.url);
    address = `${u.hostname || '127.0.0.1'}:${u.port || '6379'}`;
  } catch { /* a URL config validation let through: the key is named all the same */ }
  return `the queue (queue.redis_url ${address})`;
}

/** The queue's server did not answer: an outage, whose stack says nothing (repeat-limit logs it without one). */
export class QueueUnreachableError extends DependencyUnavailableError {}

/**
 * Whether a queue command failed for want of a connection. ioredis gives up on a command after the producer's
 * maxRetriesPerRequest reconnects with "Reached the max retries per request limit … Refer to maxRetriesPerRequest":
 * an option of ours, not the operator's, and the words do not say the server is away.
 */
function unanswered(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.name === 'MaxRetriesPerRequestError' || /^Connection is closed\.?$/.test(err.message) || lostConnection(err);
}

/**
 * A queue command's failure in the operator's words: `the queue (queue.redis_url HOST:PORT) does not answer: its
 * connection is down (last error: connect ECONNREFUSED …)`. Other failures (Redis full: `OOM …`) pass unchanged.
 * `lastError`: the latest error the connection itself reported, which says why (refused, WRONGPASS, timed out).
 */
export function inQueueWords(err: unknown, backend: QueueBackend, lastError?: Error): unknown {
  if (!unanswered(err) || err instanceof QueueUnreachableError) return err;
  const own = (err as Error).name === 'MaxRetriesPerRequestError' ? lastError : (err as Error);
  const why = own ? ` (last error: ${redactText(own.message)})` : '';
  return new QueueUnreachableError(`${queueNamed(backend)} does not answer: its connection is down${why}`, { cause: err });
}
