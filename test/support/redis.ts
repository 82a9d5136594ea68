import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach } from 'vitest';
import { closedPort } from './ports.ts';

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

/**
 * A Redis of the calling test file's own, so it can be set up badly, filled up or killed; each is killed
 * after its test. Returns a starter: call it inside a test.
 */
export function useOwnRedis(): (args: string[]) => Promise<{ url: string; server: ChildProcess }> {
  const servers: ChildProcess[] = [];
  afterEach(() => { for (const s of servers.splice(0)) s.kill('SIGKILL'); });
  return async (args) => {
    const port = await closedPort();
    const server = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.stdout!.on('data', (d: Buffer) => { if (/Ready to accept connections/.test(d.toString())) resolve(); });
      server.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
    });
    return { url: `redis://127.0.0.1:${port}`, server };
  };
}
