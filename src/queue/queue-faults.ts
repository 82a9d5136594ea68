import type { RunQueue } from './run-queue.ts';

/** The queue refusing runs: since when, the latest refusal, and what it said (Redis full: `OOM command not allowed …`). */
export interface QueueFault {
  readonly since: Date;
  readonly last: Date;
  readonly message: string;
}

/**
 * A run queue that remembers a refused enqueue until one goes through again. A run whose enqueue failed
 * stays queued in the database and nothing runs it, while every firing pass after it may still succeed
 * (nothing new is due): without this, /healthz would say ok while the queue takes no work.
 */
export function withFaultTracking(queue: RunQueue): RunQueue & { fault(): QueueFault | null; clearedBefore(t: Date): void } {
  let fault: QueueFault | null = null;
  return {
    ...queue,
    async enqueue(runId, opts) {
      try {
        await queue.enqueue(runId, opts);
        fault = null;
      } catch (err) {
        const now = new Date();
        fault = { since: fault?.since ?? now, last: now, message: (err as Error).message };
        throw err;
      }
    },
    fault: () => fault,
    /**
     * A reconcile pass went through: every run queued before `t` is in the queue now, or no longer waits (it was
     * cancelled, removed). A refusal before `t` leaves nothing behind; a later one may, until the next pass.
     */
    clearedBefore: (t) => { if (fault && fault.last <= t) fault = null; },
  };
}
