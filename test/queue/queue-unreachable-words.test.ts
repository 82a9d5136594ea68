import { describe, expect, it } from 'vitest';
import { loopFailureLog } from '../../src/log/repeat-limit.ts';
import { openRunQueue } from '../../src/queue/run-queue.ts';
import { DependencyUnavailableError } from '../../src/util/dependency-error.ts';
import { capturedLog } from '../support/captured-log.ts';
import { useOwnRedis } from '../support/redis.ts';

// During a Redis outage the firing and reconcile passes (and /healthz) said "Reached the max retries per request limit
// (which is 3). Refer to "maxRetriesPerRequest" option for details.", with a stack: an ioredis option the operator cannot
// set, in words that neither name the queue nor say its server is away.
const ownRedis = useOwnRedis();

describe('a queue command while Redis is away', () => {
  it('fails naming the queue\'s setting and address and saying it does not answer, with the connection\'s own error, never its password', async () => {
    const { url, server } = await ownRedis(['--requirepass', 'planted-secret']);
    const address = new URL(url).host;
    const queue = openRunQueue({ kind: 'redis', url: url.replace('redis://', 'redis://:planted-secret@') }, 'unreachable', { name: 'words', onError: () => {} });
    try {
      await queue.ready();
      await queue.enqueue('run_before');
      server.kill('SIGKILL');
      await new Promise((r) => server.once('exit', r));
      for (const attempt of [() => queue.enqueue('run_during'), () => queue.holds('run_before')]) {
        const err = await attempt().then(() => null, (e: unknown) => e as Error);
        expect(err).toBeInstanceOf(DependencyUnavailableError);
        expect(err!.message).toMatch(new RegExp(`^the queue \\(queue\\.redis_url ${address}\\) does not answer: its connection is down \\(last error: .*ECONNREFUSED`));
        expect(err!.message).not.toContain('maxRetriesPerRequest');
        expect(err!.message).not.toContain('planted-secret');
        // a loop that meets it logs it as an outage: the words, no stack
        const { lines, logger } = capturedLog();
        loopFailureLog(logger, 'firing').failed(err);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({ level: 'error', msg: 'firing pass failed', error: err!.message });
        expect(lines[0]).not.toHaveProperty('err');
      }
    } finally {
      await queue.close();
    }
  }, 60_000);

  it('leaves a refusal by a server that answers (Redis full) in its own words', async () => {
    const { url } = await ownRedis(['--maxmemory', '1mb', '--maxmemory-policy', 'noeviction']);
    const queue = openRunQueue({ kind: 'redis', url }, 'unreachable', { name: 'full', onError: () => {} });
    try {
      await queue.ready();
      const { Redis } = await import('ioredis');
      const filler = new Redis(url);
      try {
        const blob = 'x'.repeat(64 * 1024);
        for (let i = 0; i < 64; i++) await filler.set(`fill:${i}`, blob).catch(() => {});
      } finally {
        filler.disconnect();
      }
      const err = await queue.enqueue('run_full').then(() => null, (e: unknown) => e as Error);
      expect(err?.message).toMatch(/^OOM /);
    } finally {
      await queue.close();
    }
  }, 60_000);
});
