import { expect } from 'vitest';
import { jobIdFor } from '../../src/queue/run-queue.ts';

/** A queue job's handler held until `release()`; `running` resolves once the handler started. */
export function heldHandler(): { handler: () => Promise<void>; running: Promise<void>; release: () => void } {
  let started!: () => void;
  const running = new Promise<void>((r) => { started = r; });
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  return { handler: async () => { started(); await held; }, running, release };
}

/**
 * What a run's queue trouble must leave in the log: one warning starting `starts`, naming the run and its queue
 * job, saying `says`, without a stack, and no `queue worker error` line.
 */
export function expectOneQueueWarning(lines: readonly Record<string, unknown>[], starts: string, runId: string, says: string): void {
  const found = lines.filter((l) => String(l.msg).startsWith(starts));
  expect(found, JSON.stringify(lines)).toHaveLength(1);
  expect(found[0]).toMatchObject({ level: 'warn', run_id: runId, queue_job: jobIdFor(runId), msg: expect.stringContaining(says) });
  expect(found[0]).not.toHaveProperty('err');
  expect(lines.filter((l) => String(l.msg).startsWith('queue worker error'))).toEqual([]);
}
