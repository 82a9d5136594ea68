/**
 * Stable jitter: the same job and nominal instant always get the same delay, on every replica
 * and after restarts, so a redelivered or re-planned run keeps its start time.
 */
import { createHash } from 'node:crypto';

/**
 * Delay in ms for a run of `jobId` at `instant`, uniform in [0, maxSeconds·1000): the first 64 bits
 * of sha256(`${jobId}\n${instant ISO}`) scaled to the range (the newline keeps id and instant apart).
 */
export function jitterMs(jobId: string, instant: Date, maxSeconds: number): number {
  if (!Number.isFinite(maxSeconds) || maxSeconds < 0) throw new RangeError(`jitter maxSeconds must be a non-negative number, got ${maxSeconds}`);
  if (Number.isNaN(instant.getTime())) throw new RangeError('jitter instant is not a valid Date');
  const rangeMs = Math.floor(maxSeconds * 1000);
  if (rangeMs === 0) return 0;
  const digest = createHash('sha256').update(`${jobId}\n${instant.toISOString()}`).digest();
  // floor(h · range / 2^64) is in [0, range) with a bias below range / 2^64
  return Number((digest.readBigUInt64BE(0) * BigInt(rangeMs)) >> 64n);
}

/** When the run of a nominal instant may start: the instant plus its jitter. */
export function jitteredStart(jobId: string, instant: Date, maxSeconds: number): Date {
  return new Date(instant.getTime() + jitterMs(jobId, instant, maxSeconds));
}
