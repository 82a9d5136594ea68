import { describe, expect, it } from 'vitest';
import { openRunQueue } from '../../src/queue/run-queue.ts';
import { useOwnRedis } from '../support/redis.ts';

// a Redis of this test's own, so it can be set up badly and killed
const ownRedis = useOwnRedis();

describe('the run queue on an operator\'s Redis', () => {
  it('reports a Redis that evicts keys, naming the policy and the fix', async () => {
    const { url } = await ownRedis(['--maxmemory-policy', 'allkeys-lru']);
    const warnings: Array<[string, Record<string, unknown>]> = [];
    const queue = openRunQueue({ kind: 'redis', url }, 'evict', { onWarning: (m, d) => warnings.push([m, d]) });
    await queue.depth();
    await queue.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]![0]).toMatch(/maxmemory-policy allkeys-lru.*noeviction/);
    expect(warnings[0]![1]).toEqual({ maxmemory_policy: 'allkeys-lru' });
  }, 20_000);

  it('says nothing of a Redis set up as the README asks', async () => {
    const { url } = await ownRedis(['--maxmemory-policy', 'noeviction']);
    const warnings: string[] = [];
    const queue = openRunQueue({ kind: 'redis', url }, 'noevict', { onWarning: (m) => warnings.push(m) });
    await queue.depth();
    await queue.close();
    expect(warnings).toEqual([]);
  }, 20_000);

  it('closes within seconds while Redis is down, instead of waiting for it to come back', async () => {
    const { url, server } = await ownRedis(['--maxmemory-policy', 'noeviction']);
    const errors: string[] = [];
    const queue = openRunQueue({ kind: 'redis', url }, 'outage', { onError: (err, where) => errors.push(`${where}: ${err.message}`) });
    const worker = queue.work(async () => {}, { concurrency: 1 });
    await worker.run();
    await queue.enqueue('run_outage');
    server.kill('SIGKILL');
    // the lost connection reached the caller instead of being dropped
    await expect.poll(() => errors.length, { timeout: 10_000 }).toBeGreaterThan(0);
    // a close that waited for Redis to come back would never end: this test's timeout is the failure
    await queue.close();
  }, 30_000);
});
