import { queueNamed } from '../queue/queue-errors.ts';
import { noteQueueOfCommand } from './daemon-presence.ts';
import type { QueueBackend, RunQueue } from '../queue/run-queue.ts';
import { redactText } from '../util/redact.ts';
import { valueWithin } from '../util/time-limit.ts';

/**
 * How long `jobs run` waits for the queue to take the run it has committed. A queue that does not answer (Redis
 * down, a wrong password) made BullMQ wait for ever, silently, while the run was already in the database.
 * Then the command still exits 0, with a warning: the run exists and a daemon's reconciler hands it over, as
 * with no daemon connected. A failure code would have scripts run the job again: refused as busy, or (overlap
 * allow) a second run.
 */
export const HAND_OFF_WAIT_MS = 5_000;
/** How long closing the queue may take once the hand-off is over or given up. */
const CLOSE_WAIT_MS = 3_000;

export interface QueueHandOff {
  /** For the queue's onError: the connection's own errors say why it does not answer (refused, WRONGPASS). */
  heard(err: Error): void;
  /** manualRun's enqueue: never throws, never waits past the limit; the run is committed by then. */
  enqueue(queue: RunQueue, runId: string): Promise<void>;
  /** Why the queue did not take the run, or null when it did. */
  missed(): string | null;
  /** What to tell the operator when the queue did not take the run. */
  warning(runId: string): string | null;
}

export function queueHandOff(backend: QueueBackend, waitMs = HAND_OFF_WAIT_MS): QueueHandOff {
  const named = queueNamed(backend);
  let last: Error | undefined;
  let missed: string | null = null;
  return {
    heard: (err) => { last = err; },
    async enqueue(queue, runId) {
      // daemonSeen then tells daemons of another queue from daemons of this one
      noteQueueOfCommand(queue.tag ?? null);
      const sent = queue.enqueue(runId).then(() => null, (err: unknown) => err instanceof Error ? err : new Error(String(err)));
      const outcome = await valueWithin(waitMs, sent, 'timeout' as const);
      if (outcome === null) return;
      if (outcome === 'timeout') {
        missed = `${named} did not answer within ${Math.round(waitMs / 1000)} s${last ? ` (last error: ${redactText(last.message)})` : ''}`;
      } else {
        // an outage is already in the queue's words, naming it; anything else (Redis full) is named here
        const text = redactText(outcome.message);
        missed = text.startsWith('the queue (') ? text : `${named} refused it: ${text}`;
      }
    },
    missed: () => missed,
    warning: (runId) => missed && `run ${runId} is queued in the database, but not handed to the queue: ${missed}. `
      + 'A daemon\'s reconciler hands it to the queue once the queue answers (within daemon.reconcile_seconds); do not run the job again, '
      + `the run exists (echo-agent runs show ${runId})`,
  };
}

/** Closes the queue, or gives up on it: a connection that never came up must not hold the command. */
export async function closeQueueWithin(queue: RunQueue, ms = CLOSE_WAIT_MS): Promise<void> {
  await valueWithin(ms, queue.close().catch(() => {}), undefined);
}
