import type { Logger } from 'pino';
import type { Worker } from 'bullmq';
import type { RunMessage, RunQueue } from '../queue/run-queue.ts';
import type { Metrics } from './metrics.ts';
import { executeRun, type RunExecutorDeps } from './run-executor.ts';
import { repeatLimitedWarn } from '../log/repeat-limit.ts';
import { lostConnection } from '../store/pg-errors.ts';
import { valueWithin } from '../util/time-limit.ts';

/** How long a buffered run waits before looking again whether the running one has finished. */
const BUFFER_POLL_MS = 2_000;
/** A catch-up's run behind n earlier instants looks again after n polls, at most this long: one poll per step, not per instant. */
const MAX_BEHIND_WAIT_MS = 60_000;
/** A delivery that arrives while stopping goes back on the queue for this long, for any replica. */
const HAND_BACK_MS = 1_000;
/** After cancelling, how long runs get to record themselves as interrupted. */
const CANCEL_GRACE_MS = 5_000;
/** How long the queue's own close may take once no handler runs. */
const CLOSE_TIMEOUT_MS = 5_000;
/** How long handing back the retries of runs the stop cut off may take (ms each normally); a reconcile pass covers a failure. */
const HAND_BACK_LIMIT_MS = 2_000;

export interface RunWorker {
  /** Starts taking runs once its queue connection is ready: the last step of a start. */
  start(): Promise<void>;
  isRunning(): boolean;
  /** The BullMQ worker, for observers (benchmarks count its completions). */
  readonly bullmq: Worker<RunMessage>;
  /** Runs being executed by this process now. */
  running(): number;
  /**
   * Takes no new runs and waits for the running ones until `deadline`; then calls
   * `cancel` and gives them CANCEL_GRACE_MS to record themselves. Returns the runs
   * still going after that (hung past their abort): their lease expires and the
   * reconciler of any replica takes them over.
   */
  stop(deadline: Promise<unknown>, cancel: () => void): Promise<{ timedOut: boolean; abandoned: string[] }>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** Consumes the queue: each delivery is a run id, and the database decides what happens. */
export function startWorker(
  deps: RunExecutorDeps & { queue: RunQueue; metrics?: Metrics },
  opts: { concurrency: number; logger: Logger; onConnectionError?: (err: Error) => void },
): RunWorker {
  const { queue, metrics } = deps;
  const inFlight = new Map<Promise<void>, string>();
  let stopping = false;
  // retries met while stopping, until this worker is closed (see stop); `dueAt` on this process's monotonic clock
  const handBack: { runId: string; attempt: number; dueAt: number }[] = [];
  let workerClosed = false;
  const execute = async (runId: string, delivery: Parameters<Parameters<RunQueue['work']>[0]>[1]) => {
    metrics?.runsActive.inc();
    const startedAt = performance.now();
    try {
      const result = await executeRun(deps, runId);
      const took = (performance.now() - startedAt) / 1000;
      if (result.kind === 'finished' || result.kind === 'retrying') metrics?.runDuration.observe({ state: result.kind === 'finished' ? result.state : 'retrying' }, took);
      if (result.kind === 'busy') await delivery.defer(Math.min(BUFFER_POLL_MS * Math.max(1, result.behind ?? 1), MAX_BEHIND_WAIT_MS));
      if (result.kind === 'not_yet_due') await delivery.defer(result.waitMs);
      if (result.kind === 'retrying') {
        metrics?.runStates.inc({ state: 'retrying' });
        // stopping: handed back once this worker is closed, not left to the next reconcile pass. Before, a fetch of
        // this paused worker already under way could take it and hold it locked as the worker closes
        if (stopping && !workerClosed) handBack.push({ runId, attempt: result.attempt, dueAt: performance.now() + result.delayMs });
        else await queue.enqueue(runId, { attempt: result.attempt, delayMs: result.delayMs });
      }
      if (result.kind === 'finished') metrics?.runStates.inc({ state: result.state });
    } finally {
      metrics?.runsActive.dec();
    }
  };
  const qw = queue.work(async (runId, delivery) => {
    // BullMQ may hand over a job it fetched just before the pause
    if (stopping) await delivery.defer(HAND_BACK_MS);
    const p = execute(runId, delivery);
    inFlight.set(p, runId);
    try { await p; } finally { inFlight.delete(p); }
  }, { concurrency: opts.concurrency, lockDurationMs: 60_000, onError: queueWorkerErrorLog(opts.logger, opts.onConnectionError ? { connection: opts.onConnectionError } : {}) });

  // with what is left of their backoff, for another replica or the next start; the database claim keeps each to one execution
  const handBackRetries = async () => {
    const held = handBack.splice(0);
    if (held.length === 0) return;
    const sent = Promise.allSettled(held.map((h) => queue.enqueue(h.runId, { attempt: h.attempt, delayMs: Math.max(0, h.dueAt - performance.now()) })));
    // its timer cleared, not left to run out: a stopped daemon must be freed at once
    const outcomes = await valueWithin(HAND_BACK_LIMIT_MS, sent, null);
    const failed = outcomes === null ? held : held.filter((_, i) => outcomes[i]!.status === 'rejected');
    if (failed.length > 0) {
      opts.logger.warn({ run_ids: failed.map((h) => h.runId) }, 'retries of runs cut off by the stop were not handed to the queue: a reconcile pass (of a replica, or at the next start) hands them over');
    }
  };
  const idle = async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight.keys()]);
  };
  let closed = false;
  return {
    bullmq: qw.worker,
    start: () => qw.run(),
    isRunning: () => !closed && qw.worker.isRunning(),
    running: () => inFlight.size,
    async stop(deadline, cancel) {
      stopping = true;
      await Promise.race([qw.pause().catch(() => {}), sleep(CLOSE_TIMEOUT_MS)]);
      const timedOut = await Promise.race([idle().then(() => false), deadline.then(() => true)]);
      if (timedOut) {
        cancel();
        await Promise.race([idle(), sleep(CANCEL_GRACE_MS)]);
      }
      const abandoned = [...inFlight.values()];
      closed = true;
      await Promise.race([qw.close().catch(() => {}), sleep(CLOSE_TIMEOUT_MS)]);
      workerClosed = true;
      await handBackRetries();
      return { timedOut, abandoned };
    },
  };
}

/** BullMQ's words for a run whose queue lock is gone: not renewed in time (`renew`), or missing (or another's) at a later command. */
const LOCK_LOST = /^(?:could not renew lock for job (?<renew>\S+)$|(?:Missing lock|Lock mismatch) for job (?<job>\S+?)\. (?:Cmd )?(?<command>\w+))/;
/** BullMQ's words for a run whose queue job is gone: Redis restarted empty, or was flushed. */
const JOB_LOST = /^Missing key for job (?<job>\S+?)\. (?<command>\w+)/;
/** Queue jobs whose lost lock or job was logged: bounded, one line per run attempt however often BullMQ repeats it. */
const LOCK_LOSS_MEMORY = 1_000;

/** What became of the run, by the command that met the loss: only moveToFinished is its end. */
const afterLoss = (command: string | undefined) => command === 'moveToFinished'
  ? 'the run has ended, and its end is recorded in the database whatever the queue says of it'
  : command === undefined ? 'the run goes on, and its end is recorded in the database whatever the queue says of it'
    : 'the database keeps the run\'s state, and the reconciler hands the queue again a run still waiting';

const runOf = (queueJob: string) => queueJob.replace(/\.\d+$/, '');

/**
 * The queue worker's errors, each kind once per few seconds. A full Redis (maxmemory under noeviction) is no
 * connection trouble: every write is refused, so runs are neither taken nor completed until memory is freed.
 * A lost lock is no connection trouble either once the queue answers again (BullMQ repeats it every renewal, 15 s):
 * it is said once per run attempt, and so is a job the queue lost altogether. A connection's own failure goes to
 * `connection`, where the daemon's queue connection errors are logged, so one refused reconnect is one line, not one from each listener.
 */
export function queueWorkerErrorLog(logger: Logger, opts: { connection?: (err: Error) => void } = {}): (err: Error) => void {
  const full = repeatLimitedWarn(logger, 'the queue\'s Redis is full (maxmemory reached under noeviction) and refuses writes: runs are neither taken nor completed until memory is freed or maxmemory raised', { level: 'error', stack: false });
  const connection = opts.connection ?? repeatLimitedWarn(logger, 'queue connection error', { stack: false });
  const other = repeatLimitedWarn(logger, 'queue worker error: a command to the queue or its connection failed');
  const said = new Set<string>();
  const once = (job: string): boolean => {
    if (said.has(job)) return false;
    if (said.size >= LOCK_LOSS_MEMORY) said.clear();
    said.add(job);
    return true;
  };
  return (err) => {
    const lock = LOCK_LOST.exec(err.message);
    if (lock) {
      const job = (lock.groups!.renew ?? lock.groups!.job)!;
      if (!once(job)) return;
      logger.warn({ run_id: runOf(job), queue_job: job, error: err.message },
        'the queue lost this run\'s lock (its connection was away or slow for longer than the lock lasts): the database claim still holds the run, so nothing runs twice '
        + `(a second delivery finds it claimed); ${afterLoss(lock.groups!.command)}`);
      return;
    }
    const gone = JOB_LOST.exec(err.message);
    if (gone) {
      const job = gone.groups!.job!;
      if (!once(job)) return;
      logger.warn({ run_id: runOf(job), queue_job: job, error: err.message },
        `the queue lost this run's job (Redis restarted empty, or was flushed): ${afterLoss(gone.groups!.command)}`);
      return;
    }
    if (/^OOM\b/.test(err.message)) full(err);
    else if (lostConnection(err) || /^Connection is closed\.?$/.test(err.message)) connection(err);
    else other(err);
  };
}
