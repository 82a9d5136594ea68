import { DelayedError, Queue, Worker, withBackend, createPostgresBackend, type Processor } from 'bullmq';
import { Redis } from 'ioredis';

/** The message on the queue: only the run id; PostgreSQL holds everything else. */
export interface RunMessage {
  readonly runId: string;
}

export type QueueBackend =
  | { readonly kind: 'redis'; readonly url: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

export interface RunQueue {
  readonly backend: QueueBackend['kind'];
  /**
   * Idempotent per attempt: the BullMQ job id is `<run id>.<attempts so far>`, so
   * a second enqueue of the same attempt is a no-op and a retry gets a new job.
   */
  enqueue(runId: string, opts?: { attempt?: number; delayMs?: number }): Promise<void>;
  /** Whether the queue still holds this attempt's job (waiting, delayed or active). */
  holds(runId: string, attempt?: number): Promise<boolean>;
  depth(): Promise<number>;
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
  close(force?: boolean): Promise<void>;
  readonly worker: Worker<RunMessage>;
}

export const QUEUE_NAME = 'runs';

/** BullMQ custom ids must not look like integers nor contain ':'. */
export function jobIdFor(runId: string, attempt = 0): string {
  if (!/^[A-Za-z0-9_-]+$/.test(runId) || /^\d+$/.test(runId)) throw new Error(`run id ${JSON.stringify(runId)} cannot be a BullMQ job id`);
  return `${runId}.${attempt}`;
}

export function openRunQueue(backend: QueueBackend, prefix: string): RunQueue {
  return backend.kind === 'redis' ? openRedisQueue(backend.url, prefix) : openPostgresQueue(backend.url, backend.schema, prefix);
}

const JOB_OPTIONS = { removeOnComplete: { count: 1000 }, removeOnFail: { count: 5000 }, attempts: 1 } as const;

function openRedisQueue(url: string, prefix: string): RunQueue {
  // BullMQ never closes connections it is given, so this module owns and closes them.
  const producer = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: false });
  const connections: Redis[] = [producer];
  const queue = new Queue<RunMessage>(QUEUE_NAME, { connection: producer, prefix });
  return wrap('redis', queue, (processor, concurrency, lockDuration) => {
    const workerConn = new Redis(url, { maxRetriesPerRequest: null });
    connections.push(workerConn);
    return new Worker<RunMessage>(QUEUE_NAME, processor, { connection: workerConn, prefix, concurrency, lockDuration, autorun: true });
  }, async () => {
    await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
  });
}

/**
 * The database URL for the queue's own connections. BullMQ pins their search_path
 * to its schema through `options`; a search_path in the URL's `options` (a
 * deployment that keeps echo-agent's tables in a schema) would win and hide the queue's tables.
 */
export function queueConnectionUrl(url: string): string {
  const u = new URL(url);
  const options = u.searchParams.get('options');
  if (options === null) return url;
  const kept = options.replace(/(^|\s)(-c\s*|--)search_path=\S+/g, '').trim();
  if (kept) u.searchParams.set('options', kept);
  else u.searchParams.delete('options');
  return u.toString();
}

function openPostgresQueue(url: string, schema: string, prefix: string): RunQueue {
  const bound = withBackend(createPostgresBackend);
  const connection = { connectionString: queueConnectionUrl(url), schema, migrate: true, max: 10 };
  // the PostgreSQL backend has no key prefix; the queue name carries it instead
  const name = `${prefix}-${QUEUE_NAME}`;
  const queue = new bound.Queue<RunMessage>(name, { connection });
  return wrap('postgres', queue as unknown as Queue<RunMessage>, (processor, concurrency, lockDuration) =>
    new bound.Worker<RunMessage>(name, processor, { connection, concurrency, lockDuration, autorun: true }) as unknown as Worker<RunMessage>,
  async () => {});
}

function wrap(
  kind: QueueBackend['kind'],
  queue: Queue<RunMessage>,
  makeWorker: (p: Processor<RunMessage>, concurrency: number, lockDuration: number) => Worker<RunMessage>,
  closeConnections: () => Promise<void>,
): RunQueue {
  const workers: Worker<RunMessage>[] = [];
  return {
    backend: kind,
    async enqueue(runId, opts = {}) {
      const jobId = jobIdFor(runId, opts.attempt ?? 0);
      // a finished queue job keeps its id; a run sent back (retry, reconcile) needs a fresh one
      const previous = await queue.getJob(jobId);
      if (previous) {
        const state = await previous.getState();
        if (state !== 'completed' && state !== 'failed') return;
        await previous.remove().catch(() => {});
      }
      await queue.add('run', { runId }, { ...JOB_OPTIONS, jobId, delay: Math.max(0, Math.round(opts.delayMs ?? 0)) });
    },
    async holds(runId, attempt = 0) {
      const job = await queue.getJob(jobIdFor(runId, attempt));
      if (!job) return false;
      const state = await job.getState();
      return state === 'waiting' || state === 'delayed' || state === 'active' || state === 'prioritized' || state === 'waiting-children';
    },
    async depth() {
      const c = await queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
      return Object.values(c).reduce((a, b) => a + b, 0);
    },
    work(handler, opts) {
      const worker = makeWorker(async (job, token) => handler(job.data.runId, {
        attemptsMade: job.attemptsMade,
        async defer(ms) {
          await job.moveToDelayed(Date.now() + ms, token);
          throw new DelayedError();
        },
      }), opts.concurrency, opts.lockDurationMs ?? 60_000);
      // run failures are recorded by the handler; this is the queue connection itself
      worker.on('error', (err) => opts.onError?.(err));
      workers.push(worker);
      return { worker, close: (force) => worker.close(force) };
    },
    async close() {
      await Promise.all(workers.map((w) => w.close().catch(() => {})));
      await queue.close();
      await closeConnections();
    },
  };
}
