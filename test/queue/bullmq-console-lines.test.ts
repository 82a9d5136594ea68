import { afterEach, describe, expect, it, vi } from 'vitest';
import { openRunQueue } from '../../src/queue/run-queue.ts';
import { useOwnRedis } from '../support/redis.ts';
import { until } from '../support/until.ts';

// With a Redis that evicts, BullMQ printed `IMPORTANT! Eviction policy is allkeys-lru. It should be "noeviction"`
// as plain text, once per connection, in the middle of the daemon's JSON-lines log.
const ownRedis = useOwnRedis();

afterEach(() => { vi.restoreAllMocks(); });

describe('BullMQ\'s console lines', () => {
  it.each([
    ['CONFIG allowed', [] as string[]],
    // a managed Redis: CONFIG forbidden, INFO still says the policy
    ['CONFIG forbidden', ['--rename-command', 'CONFIG', '""']],
  ])('an evicting Redis (%s) is said once through onWarning, and nothing goes to the console', async (_what, extra) => {
    const { url } = await ownRedis(['--maxmemory-policy', 'allkeys-lru', ...extra]);
    const printed = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const warnings: { message: string; detail: Record<string, unknown> }[] = [];
    const queue = openRunQueue({ kind: 'redis', url }, 'console-lines', { name: 'evicting', onWarning: (message, detail) => warnings.push({ message, detail }) });
    try {
      await queue.ready();
      const worker = queue.work(async () => {}, { concurrency: 1 });
      await worker.run();
      await queue.enqueue('run_console');
      await until('the eviction warning', () => warnings.length > 0, 20_000);
      // the worker's two connections have checked too by now: its blocking fetch has run
      await new Promise((r) => setTimeout(r, 500));
      expect(warnings).toEqual([{ message: expect.stringContaining('Redis evicts keys (maxmemory-policy allkeys-lru)'), detail: { maxmemory_policy: 'allkeys-lru' } }]);
      expect(printed.mock.calls.map((c) => String(c[0])).filter((t) => /IMPORTANT|Eviction policy/.test(t))).toEqual([]);
    } finally {
      await queue.close();
    }
    // closed: the console is the caller's again
    console.warn('after close');
    expect(printed).toHaveBeenCalledWith('after close');
  }, 60_000);
});
