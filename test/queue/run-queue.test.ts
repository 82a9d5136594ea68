import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { jobIdFor, openRunQueue, type QueueBackend, type RunQueue } from '../../src/queue/run-queue.ts';
import { TEST_DATABASE_URL } from '../support/db.ts';
import { dropRedisKeys, TEST_REDIS_URL as REDIS_URL } from '../support/redis.ts';
import { until } from '../support/until.ts';

const tag = randomBytes(4).toString('hex');
const backends: Array<[string, QueueBackend, string]> = [
  ['redis', { kind: 'redis', url: REDIS_URL }, `test-${tag}`],
  ['postgres', { kind: 'postgres', url: TEST_DATABASE_URL, schema: `q_${tag}` }, `test-${tag}`],
];
const opened: RunQueue[] = [];

afterAll(async () => {
  await Promise.all(opened.map((q) => q.close()));
  await dropRedisKeys(`test-${tag}`);
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  await client.query(`drop schema if exists "q_${tag}" cascade`);
  await client.end();
});

describe('BullMQ run ids', () => {
  it('derives a job id that is neither integer-like nor contains ":"', () => {
    expect(jobIdFor('run_abc', 2)).toBe('run_abc.2');
    expect(() => jobIdFor('123')).toThrow();
    expect(() => jobIdFor('run:1')).toThrow();
  });
});

describe.each(backends)('the run queue on %s', (_name, backend, prefix) => {
  it('delivers each enqueued attempt once, even when it is enqueued twice while waiting', async () => {
    const queue = openRunQueue(backend, prefix);
    opened.push(queue);
    const seen: string[] = [];
    await queue.enqueue('run_a');
    await queue.enqueue('run_a');
    await queue.enqueue('run_b');
    expect(await queue.holds('run_a')).toBe(true);
    await queue.work(async (runId) => { seen.push(runId); }, { concurrency: 4 }).run();
    await until('two deliveries', () => seen.length >= 2, 15_000, 25);
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.sort()).toEqual(['run_a', 'run_b']);
    // a retry is a new attempt and gets a new delivery
    await queue.enqueue('run_a', { attempt: 1 });
    await until('three deliveries', () => seen.length === 3, 15_000, 25);
    // the handler has run; the queue lets go of the job once it has recorded its completion
    let held = true;
    for (let i = 0; i < 100 && held; i++) {
      held = await queue.holds('run_a', 1);
      if (held) await new Promise((r) => setTimeout(r, 50));
    }
    expect(held).toBe(false);
  });

  it('holds a delayed run and counts it in the depth', async () => {
    const queue = openRunQueue(backend, `${prefix}-h`);
    opened.push(queue);
    await queue.enqueue('run_c', { delayMs: 60_000 });
    expect(await queue.holds('run_c')).toBe(true);
    expect(await queue.holds('run_c', 1)).toBe(false);
    expect(await queue.depth()).toBe(1);
  });

  it('defers a delivery on request and delivers it again later', async () => {
    const queue = openRunQueue(backend, `${prefix}-d`);
    opened.push(queue);
    let deliveries = 0;
    await queue.work(async (_id, delivery) => {
      deliveries++;
      if (deliveries === 1) await delivery.defer(200);
    }, { concurrency: 1 }).run();
    await queue.enqueue('run_d');
    await until('a second delivery', () => deliveries >= 2, 15_000, 25);
    expect(deliveries).toBe(2);
  });
});
