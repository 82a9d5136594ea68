import type { JobRow } from '../store/schema.ts';

/** The wait before attempt `attempt + 1`: retry_backoff_seconds, doubled with each attempt already made. */
export function retryBackoffMs(job: Pick<JobRow, 'retry_backoff_seconds'>, attempt: number): number {
  return job.retry_backoff_seconds * 1000 * 2 ** Math.max(0, attempt - 1);
}
