import { DelayedError, Queue, Worker, withBackend, createPostgresBackend, type Processor } from 'bullmq';
import { Redis } from 'ioredis';
import { DependencyUnavailableError, StoppedWhileStartingError } from '../util/dependency-error.ts';
import { quietBullmqConsole } from './bullmq-console.ts';
import { inQueueWords } from './queue-errors.ts';
import { queueTag } from './queue-tag.ts';

/** The message on the queue: only the run id; PostgreSQL holds everything else. */
export interface RunMessage {
  readonly runId: string;
}

export type QueueBackend =
  | { readonly kind: 'redis'; readonly url: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

export interface RunQueue {
  readonly backend: QueueBackend['kind'];
  /** Which queue this is (queue-tag.ts): what a daemon's connection name carries, so a command can tell whether a daemon consumes it. */
  readonly tag?: string;
  /**
   * Idempotent per attempt: the BullMQ job id is `<run id>.<attempts so far>`, so
   * a second enqueue of the same attempt is a no-op and a retry gets a new job.
   */
  enqueue(runId: string, opts?: { attempt?: number; delayMs?: number }): Promise<void>;
  /** Whether the queue still holds this attempt's job (waiting, delayed or active). */
  holds(runId: string, attempt?: number): Promise<boolean>;
  depth(): Promise<number>;
  /** Resolves once the queue's connection is ready (READY_TIMEOUT_MS at most), or rejects with the cause. */
  /** `stop`: a signal that ends the wait at once (the daemon told to stop while it starts). */
  ready(stop?: AbortSignal): Promise<void>;
  /** Starts consuming; one call per process. */
  work(
    handler: (runId: string, delivery: Delivery) => Promise<void>,
    opts: { concurrency: number; lockDurationMs?: number; onError?: (err: Error) => void },
  ): QueueWorker;
  close(): Promise<void>;
}

/** What a handler may do with the delivery besides finishing it. */
export interface Delivery {
  /** Puts this delivery back for later (overlap buffer_one); never returns. */
  defer(ms: number): Promise<never>;
  readonly attemptsMade: number;
}

export interface QueueWorker {
  /**
   * Starts taking deliveries once the worker's connection is ready; the worker is made stopped so a start
   * can finish wiring first. Rejects, naming the cause, when it cannot be ready within READY_TIMEOUT_MS.
   */
  run(): Promise<void>;
  /** Takes no new deliveries; running handlers go on. */
  pause(): Promise<void>;
  /** Forced: does not wait for running handlers (the caller waits for them, with its own deadline). */
  close(): Promise<void>;
  readonly worker: Worker<RunMessage>;
}

export interface QueueOptions {
  /** Errors of the queue's own connections; BullMQ emits them, and an unheard one would be lost. */
  readonly onError?: (err: Error, where: 'queue' | 'worker') => void;
  /** What the queue found at open that an operator must fix (Redis eviction policy). */
  readonly onWarning?: (message: string, detail: Record<string, unknown>) => void;
  /** The queue's name (default QUEUE_NAME); a deployment's is runQueueName(deploymentOf(db)). */
  readonly name?: string;
  /** How long ready() waits for a connection (READY_TIMEOUT_MS); tests shorten it. */
  readonly readyTimeoutMs?: number;
}

export const QUEUE_NAME = 'runs';

/**
 * A deployment's own run queue. Two deployments with one queue (one Redis and queue.prefix, or one database's
 * PostgreSQL-backend queue with their tables in two schemas) would take each other's runs, which the taker's
 * database does not hold: they would wait for the reconciler, and their instants be skipped as busy meanwhile.
 */
export function runQueueName(d: { readonly database: string; readonly schema: string }): string {
  const part = (s: string) => s.replace(/[^A-Za-z0-9_]/g, '_');
  return `${QUEUE_NAME}-${part(d.database)}${d.schema === 'public' ? '' : `-${part(d.schema)}`}`;
}

/** BullMQ custom ids must not look like integers nor contain ':'. */
export function jobIdFor(runId: string, attempt = 0): string {
  if (!/^[A-Za-z0-9_-]+$/.test(runId) || /^\d+$/.test(runId)) throw new Error(`run id ${JSON.stringify(runId)} cannot be a BullMQ job id`);
  return `${runId}.${attempt}`;
}

export function openRunQueue(backend: QueueBackend, prefix: string, opts: QueueOptions = {}): RunQueue {
  const queue = backend.kind === 'redis' ? openRedisQueue(backend, prefix, opts) : openPostgresQueue(backend, prefix, opts);
  return { ...queue, tag: queueTag(backend, prefix) };
}

/** How long a Redis connection may take to quit before it is cut: quitting waits on a server that may be down. */
const QUIT_TIMEOUT_MS = 2_000;
/** How long a start waits for the worker's queue connection before it fails. */
export const READY_TIMEOUT_MS = 30_000;

/**
 * The worker's connection ready, or the reason it is not. Awaited before the worker runs: BullMQ's
 * PostgreSQL backend keeps a failed first connect for good, and a worker running on it fetches in a
 * loop that never yields, so nothing else in the process (signals, timers, the server's death) is heard.
 */
async function readyWithin(
  what: string, client: { waitUntilReady(): Promise<unknown>; on(e: 'error', l: (err: Error) => void): unknown; off(e: 'error', l: (err: Error) => void): unknown }, ms: number,
  stop?: AbortSignal,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onStop: (() => void) | undefined;
  // a connection that keeps failing reports why only as 'error' events: the timeout names the last of them
  let last: Error | undefined;
  const heard = (err: Error) => { last = err; };
  client.on('error', heard);
  try {
    await Promise.race([
      client.waitUntilReady(),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`not ready within ${ms} ms${last ? `; last error: ${last.message}` : ''}`)), ms); }),
      new Promise((_, reject) => {
        onStop = () => reject(new StoppedWhileStartingError(`stopped while waiting for the ${what}'s connection`));
        if (stop?.aborted) onStop();
        else stop?.addEventListener('abort', onStop, { once: true });
      }),
    ]);
  } catch (err) {
    if (err instanceof StoppedWhileStartingError) throw err;
    throw new DependencyUnavailableError(`the ${what}'s connection is not ready: ${(err as Error).message}`, { cause: err });
  } finally {
    clearTimeout(timer);
    if (onStop) stop?.removeEventListener('abort', onStop);
    client.off('error', heard);
  }
}

async function quitOrCut(c: Redis): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const quit = c.quit().then(() => true, () => false);
  const timedOut = new Promise<false>((r) => { timer = setTimeout(() => r(false), QUIT_TIMEOUT_MS); });
  const quitted = await Promise.race([quit, timedOut]);
  clearTimeout(timer);
  if (!quitted) c.disconnect();
}

const JOB_OPTIONS = { removeOnComplete: { count: 1000 }, removeOnFail: { count: 5000 }, attempts: 1 } as const;

function openRedisQueue(backend: QueueBackend & { kind: 'redis' }, prefix: string, opts: QueueOptions): RunQueue {
  const { url } = backend;
  const name = opts.name ?? QUEUE_NAME;
  // BullMQ's own eviction-policy line is plain text on the console: checkEvictionPolicy says it in the log
  const unquiet = quietBullmqConsole(opts.onWarning);
  // BullMQ never closes connections it is given, so this module owns and closes them.
  const producer = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: false });
  // BullMQ stops listening when the queue closes, and ioredis prints an unheard error to stderr, outside the log
  const heard = (c: Redis, where: 'queue' | 'worker') => c.on('error', (err) => opts.onError?.(err, where));
  heard(producer, 'queue');
  // why the connection is down, for a command that gave up on it (its own error says only that it gave up)
  let lastError: Error | undefined;
  producer.on('error', (err) => { lastError = err; });
  producer.on('ready', () => { lastError = undefined; });
  const connections: Redis[] = [producer];
  const queue = new Queue<RunMessage>(name, { connection: producer, prefix });
  void checkEvictionPolicy(producer, opts);
  return wrap(backend, () => lastError, queue, opts, (processor, concurrency, lockDuration) => {
    const workerConn = new Redis(url, { maxRetriesPerRequest: null });
    heard(workerConn, 'worker');
    connections.push(workerConn);
    return new Worker<RunMessage>(name, processor, { connection: workerConn, prefix, concurrency, lockDuration, autorun: false });
  }, async () => {
    await Promise.all(connections.map(quitOrCut));
    unquiet();
  });
}

/**
 * Redis that evicts keys drops queued jobs and their locks. PostgreSQL still holds
 * every run and the reconciler sends lost ones again, so this is reported, not refused.
 * A managed Redis may forbid CONFIG, and INFO too; then nothing can be said.
 */
export async function checkEvictionPolicy(redis: Redis, opts: QueueOptions): Promise<string | null> {
  const reply = await redis.config('GET', 'maxmemory-policy').catch(() => null) as unknown;
  // a managed Redis that forbids CONFIG still tells INFO, which BullMQ's own (held back) check reads
  const info = Array.isArray(reply) ? null : await redis.info('memory').catch(() => null);
  const policy = Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : /^maxmemory_policy:(\S+)/m.exec(info ?? '')?.[1] ?? null;
  if (policy !== null && policy !== 'noeviction') {
    opts.onWarning?.(`Redis evicts keys (maxmemory-policy ${policy}): queued runs can vanish and come back only with the reconciler, seconds to minutes late; set maxmemory-policy noeviction`, { maxmemory_policy: policy });
  }
  return policy;
}

/**
 * The database URL for the queue's own connections. BullMQ pins their search_path
 * to its schema through `options`; a search_path in the URL's `options` (a
 * deployment that keeps echo-agent's tables in a schema) would win and hide the queue's tables.
 */
export function queueConnectionUrl(url: string): string {
  // the query alone: WHATWG URL refuses forms pg takes (`postgres://u@/db?host=/run/postgresql`, a socket directory)
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  const options = params.get('options');
  if (options === null) return url;
  const kept = options.replace(/(^|\s)(-c\s*|--)search_path=\S+/g, '').trim();
  if (kept) params.set('options', kept);
  else params.delete('options');
  const rest = params.toString();
  return rest ? `${url.slice(0, q)}?${rest}` : url.slice(0, q);
}

function openPostgresQueue(backend: QueueBackend & { kind: 'postgres' }, prefix: string, opts: QueueOptions): RunQueue {
  const { url, schema } = backend;
  const bound = withBackend(createPostgresBackend);
  const connection = { connectionString: queueConnectionUrl(url), schema, migrate: true, max: 10 };
  // the PostgreSQL backend has no key prefix; the queue name carries it instead
  const name = `${prefix}-${opts.name ?? QUEUE_NAME}`;
  const queue = new bound.Queue<RunMessage>(name, { connection });
  return wrap(backend, () => undefined, queue as unknown as Queue<RunMessage>, opts, (processor, concurrency, lockDuration) =>
    new bound.Worker<RunMessage>(name, processor, { connection, concurrency, lockDuration, autorun: false }) as unknown as Worker<RunMessage>,
  async () => {});
}

function wrap(
  backend: QueueBackend,
  lastError: () => Error | undefined,
  queue: Queue<RunMessage>,
  opts: QueueOptions,
  makeWorker: (p: Processor<RunMessage>, concurrency: number, lockDuration: number) => Worker<RunMessage>,
  closeConnections: () => Promise<void>,
): RunQueue {
  const workers: Worker<RunMessage>[] = [];
  queue.on('error', (err) => opts.onError?.(err, 'queue'));
  // a command that failed for want of a connection says which queue does not answer, and why
  const worded = <A extends unknown[], T>(f: (...a: A) => Promise<T>) => async (...a: A): Promise<T> => {
    try {
      return await f(...a);
    } catch (err) {
      throw inQueueWords(err, backend, lastError());
    }
  };
  return {
    backend: backend.kind,
    enqueue: worded(async (runId: string, opts: { attempt?: number; delayMs?: number } = {}) => {
      const jobId = jobIdFor(runId, opts.attempt ?? 0);
      // a finished queue job keeps its id; a run sent back (retry, reconcile) needs a fresh one
      const previous = await queue.getJob(jobId);
      if (previous) {
        const state = await previous.getState();
        if (state !== 'completed' && state !== 'failed') return;
        await previous.remove().catch(() => {});
      }
      await queue.add('run', { runId }, { ...JOB_OPTIONS, jobId, delay: Math.max(0, Math.round(opts.delayMs ?? 0)) });
    }),
    holds: worded(async (runId: string, attempt = 0) => {
      const job = await queue.getJob(jobIdFor(runId, attempt));
      if (!job) return false;
      const state = await job.getState();
      return state === 'waiting' || state === 'delayed' || state === 'active' || state === 'prioritized' || state === 'waiting-children';
    }),
    // the same holds for the queue: a failed first connect would refuse every enqueue until a restart
    ready: (stop) => readyWithin('queue', queue, opts.readyTimeoutMs ?? READY_TIMEOUT_MS, stop),
    depth: worded(async () => {
      const c = await queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
      return Object.values(c).reduce((a, b) => a + b, 0);
    }),
    work(handler, workOpts) {
      const worker = makeWorker(async (job, token) => handler(job.data.runId, {
        attemptsMade: job.attemptsMade,
        async defer(ms) {
          await job.moveToDelayed(Date.now() + ms, token);
          throw new DelayedError();
        },
      }), workOpts.concurrency, workOpts.lockDurationMs ?? 60_000);
      // run failures are recorded by the handler; this is the queue connection itself
      const report = workOpts.onError ?? ((err: Error) => opts.onError?.(err, 'worker'));
      worker.on('error', report);
      workers.push(worker);
      return {
        worker,
        async run() {
          await readyWithin('queue worker', worker, opts.readyTimeoutMs ?? READY_TIMEOUT_MS);
          worker.run().catch(report);
        },
        pause: () => worker.pause(true),
        // forced from the start: BullMQ answers a later close(true) with an earlier, still waiting close()
        close: () => closeWorker(worker, backend.kind),
      };
    },
    async close() {
      // a worker whose close is already under way hands back that close: never wait on it for ever
      await Promise.all(workers.map((w) => Promise.race([closeWorker(w, backend.kind).catch(() => {}), new Promise((r) => setTimeout(r, QUIT_TIMEOUT_MS * 2).unref())])));
      await queue.close();
      await closeConnections();
    },
  };
}

/**
 * queue.worker_wait_ended: a forced close skips BullMQ's disconnectBlocking, so the PostgreSQL backend's waitForJob
 * kept its 5 s timer (ref'd) after the close, and a stopped daemon waited on it past its exit backstop. Ended once
 * the worker is closed: its connection is closing by then, so the fetch the wake-up starts never reaches the database
 * (the backend answers it with a promise that never settles), and no job is taken by a closed worker.
 */
async function closeWorker(worker: Worker<RunMessage>, kind: QueueBackend['kind']): Promise<void> {
  try {
    await worker.close(true);
  } finally {
    // Redis: closing its connection ends the blocking command already
    if (kind === 'postgres') await worker.backend.disconnectBlocking(false).catch(() => {});
  }
}
