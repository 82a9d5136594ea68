import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';

/** Redis on this machine; CI starts it when it is down. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Deletes every key whose name starts with `prefix`, so prefixes made from it (`${prefix}-h`) go too; SCAN, not KEYS, so a shared Redis is not blocked. */
export async function dropRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

/** A queue prefix of this test file's own, whose keys are dropped after the file's tests. */
export function useRedisPrefix(name: string): string {
  const prefix = `${name}-${randomBytes(4).toString('hex')}`;
  afterAll(() => dropRedisKeys(prefix));
  return prefix;
}
