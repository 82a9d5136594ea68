import { describe, expect, it } from 'vitest';
import { closedPort } from '../agent/raw-endpoint.ts';
import { openRunQueue } from '../../src/queue/run-queue.ts';

// A daemon started against a Redis that refuses connections waited out the ready timeout and then said only
// "not ready within 30000 ms": the cause was in earlier log lines. The start error itself names it now.
describe('a queue whose Redis refuses connections', () => {
  it('fails ready() naming the last connection error, not only the timeout', async () => {
    const port = await closedPort();
    const queue = openRunQueue({ kind: 'redis', url: `redis://127.0.0.1:${port}` }, 'refused', { readyTimeoutMs: 1500, onError: () => {} });
    try {
      await expect(queue.ready()).rejects.toThrow(/^the queue's connection is not ready: not ready within 1500 ms; last error: .*ECONNREFUSED/);
    } finally {
      await queue.close();
    }
  }, 20_000);
});
