import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { queueWorkerErrorLog } from '../../src/daemon/worker.ts';
import { repeatLimitedWarn } from '../../src/log/repeat-limit.ts';
import { jobIdFor, openRunQueue } from '../../src/queue/run-queue.ts';
import { capturedLog } from '../support/captured-log.ts';
import { expectOneQueueWarning, heldHandler } from '../support/queue-log.ts';
import { until } from '../support/until.ts';
import { TEST_REDIS_URL, useRedisPrefix } from '../support/redis.ts';
import { tcpProxy } from '../support/tcp-proxy.ts';

const prefix = useRedisPrefix('test-lock-loss');

// After a Redis outage BullMQ said "could not renew lock" every renewal for the rest of the run, and
// "Missing lock … moveToFinished" at its end, each with a stack and as a connection failure: an operator went
// looking for a Redis problem that was over, while the database claim had kept the run safe all along.
describe('the queue worker\'s log when Redis was away', () => {
  it('names a lost lock once per run, at warn and without a stack, saying the database claim still holds the run', async () => {
    const { lines, logger } = capturedLog();
    const queue = openRunQueue({ kind: 'redis', url: TEST_REDIS_URL }, prefix, { name: 'lock' });
    const seen: string[] = [];
    const report = queueWorkerErrorLog(logger);
    const { handler, release } = heldHandler();
    let renewalsFailed = 0;
    try {
      await queue.enqueue('run_lock_lost');
      // a short lock, renewed every half second: many renewals fail while the run is held
      const worker = queue.work(handler, { concurrency: 1, lockDurationMs: 2_000, onError: (err) => { seen.push(err.message); report(err); } });
      worker.worker.on('lockRenewalFailed', () => { renewalsFailed++; });
      await worker.run();
      const lockKey = `${prefix}:lock:${jobIdFor('run_lock_lost')}:lock`;
      const redis = new Redis(TEST_REDIS_URL);
      try {
        await until(`${lockKey} taken`, async () => (await redis.exists(lockKey)) === 1);
        // what an outage longer than the lock leaves behind: the lock is gone
        await redis.del(lockKey);
      } finally {
        await redis.quit();
      }
      await until('three failed renewals', () => renewalsFailed >= 3);
      release();
      await until('the missing lock at the run\'s end', () => seen.some((m) => m.startsWith('Missing lock for job')));
      expectOneQueueWarning(lines, 'the queue lost this run\'s lock', 'run_lock_lost', 'the database claim still holds the run, so nothing runs twice');
    } finally {
      release();
      await queue.close();
    }
  }, 60_000);

  it('logs each failed reconnect once, where the queue\'s connection errors are logged, not a second time as a worker error with a stack', async () => {
    const proxy = await tcpProxy(6379);
    const { lines, logger } = capturedLog();
    // a window longer than the test: each distinct failure is one line however often it comes
    const connectionLog = repeatLimitedWarn(logger, 'queue connection error', { stack: false, windowMs: 3_600_000 });
    const queue = openRunQueue({ kind: 'redis', url: `redis://127.0.0.1:${proxy.port}` }, prefix, { name: 'reconnect', onError: (err, where) => connectionLog(err, { where }) });
    let refusedToWorker = 0;
    const report = queueWorkerErrorLog(logger, { connection: (err) => connectionLog(err, { where: 'worker' }) });
    try {
      await queue.ready();
      const worker = queue.work(async () => {}, { concurrency: 1, onError: (err) => { if (/ECONNREFUSED/.test(err.message)) refusedToWorker++; report(err); } });
      await worker.run();
      await proxy.cut();
      await until('the worker hearing refused reconnects', () => refusedToWorker >= 3);
      await proxy.restore();
      expect(lines.filter((l) => String(l.msg).startsWith('queue worker error'))).toEqual([]);
      const refused = lines.filter((l) => l.msg === 'queue connection error' && l.where === 'worker' && String(l.error).includes('ECONNREFUSED'));
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ level: 'warn', code: 'ECONNREFUSED' });
      expect(refused[0]).not.toHaveProperty('err');
    } finally {
      await queue.close();
      await proxy.close();
    }
  }, 60_000);
});
