import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { queueWorkerErrorLog } from '../../src/daemon/worker.ts';
import { openRunQueue } from '../../src/queue/run-queue.ts';
import { useOwnRedis } from '../support/redis.ts';
import { capturedLog } from '../support/captured-log.ts';

// A Redis that reached maxmemory under noeviction refuses every write: the worker can neither take nor
// complete a run. Logged as "connection error", an operator looks at the network instead of the memory.
const ownRedis = useOwnRedis();


describe('the queue worker on a Redis that is full', () => {
  it('logs at error that Redis is full and refuses writes, naming maxmemory, not a connection error', async () => {
    const { url } = await ownRedis(['--maxmemory-policy', 'noeviction']);
    const { lines, logger } = capturedLog();
    const queue = openRunQueue({ kind: 'redis', url }, 'full', {});
    try {
      await queue.enqueue('run_before_full');
      const admin = new Redis(url);
      await admin.config('SET', 'maxmemory', '1');
      await admin.quit();
      const worker = queue.work(async () => {}, { concurrency: 1, onError: queueWorkerErrorLog(logger) });
      await worker.run().catch(() => {});
      const deadline = Date.now() + 20_000;
      while (!lines.some((l) => String(l.msg).includes('Redis is full')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const full = lines.find((l) => String(l.msg).includes('Redis is full'));
      expect(full, JSON.stringify(lines)).toMatchObject({ level: 'error' });
      expect(String(full!.msg)).toMatch(/maxmemory reached under noeviction/);
      expect(String(full!.error)).toMatch(/^OOM command not allowed/);
      expect(lines.some((l) => String(l.msg).startsWith('queue worker error'))).toBe(false);
    } finally {
      await queue.close();
    }
  }, 40_000);
});
