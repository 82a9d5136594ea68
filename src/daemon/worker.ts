import type { Logger } from 'pino';
import type { RunQueue, QueueWorker } from '../queue/run-queue.ts';
import type { Metrics } from './metrics.ts';
import { executeRun, type RunExecutorDeps } from './run-executor.ts';

/** How long a buffered run waits before looking again whether the running one has finished. */
const BUFFER_POLL_MS = 2_000;

/** Consumes the queue: each delivery is a run id, and the database decides what happens. */
export function startWorker(deps: RunExecutorDeps & { queue: RunQueue; metrics?: Metrics }, opts: { concurrency: number; logger: Logger }): QueueWorker {
  const { queue, metrics } = deps;
  return queue.work(async (runId, delivery) => {
    metrics?.runsActive.inc();
    try {
      const result = await executeRun(deps, runId);
      if (result.kind === 'busy') await delivery.defer(BUFFER_POLL_MS);
      if (result.kind === 'not_yet_due') await delivery.defer(result.waitMs);
      if (result.kind === 'retrying') await queue.enqueue(runId, { attempt: result.attempt, delayMs: result.delayMs });
      if (result.kind === 'finished') metrics?.runsFinished.inc({ state: result.state });
    } finally {
      metrics?.runsActive.dec();
    }
  }, { concurrency: opts.concurrency, lockDurationMs: 60_000, onError: (err) => opts.logger.warn({ err }, 'queue worker connection error') });
}
