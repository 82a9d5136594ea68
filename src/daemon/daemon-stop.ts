import type { Logger } from 'pino';
import type { RunWorker } from './worker.ts';

/** Each shutdown step after the running work (processes, HTTP, queue, pool) gets this long. */
export const STOP_STEP_TIMEOUT_MS = 5_000;

/** Whether `p` settled within `ms`; a timer that does not hold the process. */
export function endsWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([p.then(() => true, () => true), new Promise<false>((r) => setTimeout(() => r(false), ms).unref())]);
}

/** How a stop ended. */
export interface Stopped {
  /** What did not stop cleanly (the embedded PostgreSQL's abnormal shutdown), for a non-zero exit; null when all did. */
  readonly failure: string | null;
}

/** A stop under way: how much work it waits on, and until when. */
export interface StopState {
  readonly running: number;
  /** When running work is cancelled unless it ends first (daemon.stop_timeout_seconds after the stop began, or sooner when asked). */
  readonly cancelAt: Date;
}

export interface StopParts {
  readonly logger: Logger;
  readonly stopTimeoutSeconds: number;
  readonly worker: RunWorker | null;
  /** Aborted to cancel running work: each run then records itself as interrupted (retried when it has retries left). */
  readonly shutdown: AbortController;
  /** Passes of the firing, reconcile and retention loops: each ends its pass, bounded by the same deadline. */
  readonly loops: readonly { stop(): Promise<unknown> }[];
  /**
   * After the work, in order, each bounded by STOP_STEP_TIMEOUT_MS or its own `limitMs`; the last is the database
   * server's own stop, which waits for the server longer and whose overrunning (`failsStop`) is a stop not made cleanly.
   */
  readonly steps: readonly (readonly [what: string, run: () => Promise<unknown> | undefined, opts?: { readonly limitMs?: number; readonly failsStop?: boolean }])[];
  /** Read once the steps are done: what did not stop cleanly (the embedded PostgreSQL's shutdown), or null. */
  readonly failure: () => string | null;
}

/**
 * The graceful stop: no new firing, running work may finish until the stop timeout, then it is cancelled
 * and recorded; `cancelNow` brings that moment forward (a second SIGTERM or Ctrl-C). Then the rest is
 * closed, step by step.
 */
export function beginStop(parts: StopParts): { state(): StopState; cancelNow(why: string): void; done: Promise<Stopped> } {
  const { logger, worker, stopTimeoutSeconds } = parts;
  let cancelAt = new Date(Date.now() + stopTimeoutSeconds * 1000);
  let cancelledBy: string | null = null;
  // one deadline for everything: a hung firing or reconcile pass must not hold running work past it
  let reach!: () => void;
  const deadline = new Promise<true>((r) => { reach = () => r(true); });
  const timer = setTimeout(reach, stopTimeoutSeconds * 1000).unref();
  const running = () => worker?.running() ?? 0;
  const state = (): StopState => ({ running: running(), cancelAt });
  const cancelNow = (why: string) => {
    if (cancelledBy) return;
    cancelledBy = why;
    cancelAt = new Date();
    const n = running();
    logger.warn({ running: n, stop_timeout_seconds: stopTimeoutSeconds }, n === 0
      ? `${why} while stopping: no run is running; the rest of the stop goes on`
      : `${why} while stopping: cancelling ${n} running run(s) now, as the stop timeout would; each is recorded as interrupted (and retried when it has retries left)`);
    reach();
  };
  const n = running();
  logger.info({ running: n, cancel_at: cancelAt.toISOString(), stop_timeout_seconds: stopTimeoutSeconds }, n === 0
    ? 'stopping: no new firing; no run is running'
    : `stopping: no new firing; waiting for ${n} running run(s) until ${cancelAt.toISOString()} (daemon.stop_timeout_seconds), then cancelling them; a second SIGTERM or Ctrl-C cancels them now`);
  const done = (async (): Promise<Stopped> => {
    const loopsEnded = Promise.race([Promise.all(parts.loops.map((l) => l.stop())).then(() => false), deadline]).then((late) => {
      if (!late) return;
      logger.warn(cancelledBy ? 'a firing or reconcile pass had not ended when running work was cancelled; going on without it' : 'a firing or reconcile pass did not end by the stop timeout; going on without it');
    });
    // at the same time, not after: a run taken while a long firing pass ends would only be cancelled at the deadline
    const workEnded = worker?.stop(deadline, () => {
      if (!cancelledBy) logger.warn({ stop_timeout_seconds: stopTimeoutSeconds, running: running() }, 'stop timeout reached; cancelling running work');
      parts.shutdown.abort();
    }).then(({ abandoned }) => {
      if (abandoned.length) logger.error({ runs: abandoned }, 'runs did not end when cancelled; their lease will expire and a replica will take them over');
    });
    await Promise.all([loopsEnded, workEnded]);
    clearTimeout(timer);
    // each step is tried whatever the one before did, and none may hold the exit for ever: a database gone
    // meanwhile (an external server restarting) or a queue connection that never answers
    let overran: string | null = null;
    for (const [what, run, opts] of parts.steps) {
      const p = run();
      if (!p) continue;
      const limitMs = opts?.limitMs ?? STOP_STEP_TIMEOUT_MS;
      const ended = await endsWithin(p.catch((err: unknown) => logger.warn({ err }, `stopping: ${what} failed`)), limitMs);
      if (ended) continue;
      logger.warn({ timeout_ms: limitMs }, `stopping: ${what} did not end in time; going on without it`);
      if (opts?.failsStop) overran ??= `${what} did not end within ${limitMs} ms`;
    }
    return { failure: parts.failure() ?? overran };
  })();
  return { state, cancelNow, done };
}
