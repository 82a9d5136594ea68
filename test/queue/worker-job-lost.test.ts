import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { queueWorkerErrorLog } from '../../src/daemon/worker.ts';
import { jobIdFor, openRunQueue } from '../../src/queue/run-queue.ts';
import { capturedLog } from '../support/captured-log.ts';
import { expectOneQueueWarning, heldHandler } from '../support/queue-log.ts';
import { until } from '../support/until.ts';
import { useOwnRedis } from '../support/redis.ts';

// After Redis was restarted empty, a run in flight logged `queue worker error` with BullMQ's "Missing key for job …
// moveToFinished" and a full stack trace: expected after a restart or a flush, and nothing the operator must fix.
const ownRedis = useOwnRedis();

describe('a run whose queue job vanished with a Redis emptied under it', () => {
  it('is one warning naming the run by run_id, without a stack, saying what happened and that the database has its end', async () => {
    const { url } = await ownRedis(['--maxmemory-policy', 'noeviction']);
    const { lines, logger } = capturedLog();
    const report = queueWorkerErrorLog(logger);
    const queue = openRunQueue({ kind: 'redis', url }, 'job-lost', { name: 'lost', onError: () => {} });
    const seen: string[] = [];
    const { handler, running, release } = heldHandler();
    try {
      await queue.enqueue('run_job_lost');
      const worker = queue.work(handler, { concurrency: 1, onError: (err) => { seen.push(err.message); report(err); } });
      await worker.run();
      await running;
      // what a Redis restarted without its data leaves: nothing of the job
      const redis = new Redis(url);
      try { await redis.flushall(); } finally { await redis.quit(); }
      release();
      await until('the run\'s end meeting the missing job', () => seen.some((m) => m.startsWith('Missing key for job')));
      // BullMQ may say it again: still one line
      report(new Error(`Missing key for job ${jobIdFor('run_job_lost')}. moveToFinished`));
      expectOneQueueWarning(lines, 'the queue lost this run\'s job', 'run_job_lost',
        '(Redis restarted empty, or was flushed): the run has ended, and its end is recorded in the database');
    } finally {
      release();
      await queue.close();
    }
  }, 60_000);

  it('a lost lock met at the run\'s end says the run has ended, not that it goes on, and names it by run_id', () => {
    const { lines, logger } = capturedLog();
    queueWorkerErrorLog(logger)(new Error(`Missing lock for job ${jobIdFor('run_lock_end')}. moveToFinished`));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', run_id: 'run_lock_end', msg: expect.stringContaining('the run has ended') });
    expect(String(lines[0]!.msg)).not.toContain('the run goes on');
  });
});
