import { Queue, Worker, withBackend, createPostgresBackend, type Job, type Processor } from 'bullmq';
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
  /** Idempotent: the BullMQ job id is the run id, so a second enqueue of the same run is a no-op. */
  enqueue(runId: string, opts?: { delayMs?: number }): Promise<void>;
  /** Whether the queue still holds a job for this run (waiting, delayed or active). */
  holds(runId: string): Promise<boolean>;
  depth(): Promise<number>;
  /** Starts consuming; one call per process. */
  work(
    handler: (runId: string, job: Job<RunMessage>) => Promise<void>,
    opts: { concurrency: number; lockDurationMs?: number; onError?: (err: Error) => void },
  ): QueueWorker;
  close(): Promise<void>;
}

export interface QueueWorker {
  close(force?: boolean): Promise<void>;
  readonly worker: Worker<RunMessage>;
}

export const QUEUE_NAME = 'runs';

/** BullMQ custom ids must not look like integers nor contain ':'. */
export function jobIdFor(runId: string): string {
  if (/^\d+$/.test(runId) || runId.includes(':')) throw new Error(`run id ${JSON.stringify(runId)} cannot be a BullMQ job id`);
  return runId;
}

export function openRunQueue(backend: QueueBackend, prefix: string): RunQueue {
  return backend.kind === 'redis' ? openRedisQueue(backend.url, prefix) : openPostgresQueue(backend.url, backend.schema);
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

function openPostgresQueue(url: string, schema: string): RunQueue {
  const bound = withBackend(createPostgresBackend);
  const connection = { connectionString: url, schema, migrate: true, max: 10 };
  const queue = new bound.Queue<RunMessage>(QUEUE_NAME, { connection });
  return wrap('postgres', queue as unknown as Queue<RunMessage>, (processor, concurrency, lockDuration) =>
    new bound.Worker<RunMessage>(QUEUE_NAME, processor, { connection, concurrency, lockDuration, autorun: true }) as unknown as Worker<RunMessage>,
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
      await queue.add('run', { runId }, { ...JOB_OPTIONS, jobId: jobIdFor(runId), delay: opts.delayMs ?? 0 });
    },
    async holds(runId) {
      const job = await queue.getJob(jobIdFor(runId));
      if (!job) return false;
      const state = await job.getState();
      return state === 'waiting' || state === 'delayed' || state === 'active' || state === 'prioritized' || state === 'waiting-children';
    },
    async depth() {
      const c = await queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
      return Object.values(c).reduce((a, b) => a + b, 0);
    },
    work(handler, opts) {
      const worker = makeWorker(async (job) => handler(job.data.runId, job), opts.concurrency, opts.lockDurationMs ?? 60_000);
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
