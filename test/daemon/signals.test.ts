import { describe, expect, it } from 'vitest';
import { daemonConfigFile, spawnDaemon } from '../support/daemon-process.ts';
import { useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL as REDIS_URL, useRedisPrefix } from '../support/redis.ts';

const prefix = useRedisPrefix('test-signals');
const database = useTestDatabase();

/** Starts the real daemon binary on the test database, sends `signal` once it has started, and returns its exit code and log. */
async function stopWith(signal: NodeJS.Signals): Promise<{ code: number | null; lines: Record<string, unknown>[]; log: string }> {
  const daemon = spawnDaemon(daemonConfigFile(database().schema, { redisUrl: REDIS_URL, prefix }, ['reconcile_seconds: 600']));
  await daemon.until('daemon started');
  daemon.child.kill(signal);
  const code = await daemon.exited;
  return { code, lines: daemon.lines(), log: daemon.log() };
}

describe('signals: how the daemon stops, and what its supervisor does next', () => {
  it('SIGHUP stops it gracefully but exits 129, so systemd Restart=on-failure starts it again, and says a restart is how config is reloaded', async () => {
    const { code, lines, log } = await stopWith('SIGHUP');
    expect(code, log.slice(-3000)).toBe(129);
    expect(lines.map((l) => l.msg)).toContain('daemon stopped');
    expect(lines.find((l) => l.signal === 'SIGHUP' && l.level === 'warn')).toMatchObject({
      exit_code: 129, msg: expect.stringMatching(/does not reload.*a restart is how configuration is reloaded.*Restart=on-failure starts it again/),
    });
  }, 120_000);

  it.each(['SIGTERM', 'SIGINT'] as const)('%s stops it with exit 0: a stop asked for, which systemd does not undo', async (signal) => {
    const { code, lines, log } = await stopWith(signal);
    expect(code, log.slice(-3000)).toBe(0);
    expect(lines.map((l) => l.msg)).toContain('daemon stopped');
    expect(lines.some((l) => l.level === 'warn' && l.signal)).toBe(false);
  }, 120_000);
});
