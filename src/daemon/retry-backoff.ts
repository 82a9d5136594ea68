import { MAX_TIMER_SECONDS } from '../config/schema.ts';
import type { JobRow } from '../store/schema.ts';

/**
 * The wait before attempt `attempt + 1`: retry_backoff_seconds, doubled with each attempt already made,
 * at most Node's longest timer (24.8 days): 20 doublings of a day would overflow it and the database's integers.
 */
export function retryBackoffMs(job: Pick<JobRow, 'retry_backoff_seconds'>, attempt: number): number {
  return Math.min(job.retry_backoff_seconds * 1000 * 2 ** Math.max(0, attempt - 1), MAX_TIMER_SECONDS * 1000);
}
