import { describe, expect, it } from 'vitest';
import { daemonConfigFile, spawnDaemon } from '../support/daemon-process.ts';
import { useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL, useRedisPrefix } from '../support/redis.ts';

const database = useTestDatabase();
const prefix = useRedisPrefix('test-npm-start');

/** Whether a process still runs. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start under a supervisor', () => {
  it('a SIGTERM to npm reaches the daemon: it stops gracefully instead of running on as an orphan', async () => {
    // its own process group, as a supervisor starts it: a signal to npm alone, not to the group
    const npm = spawnDaemon(daemonConfigFile(database().schema, { redisUrl: TEST_REDIS_URL, prefix }), ['npm', 'start', '--silent'], { detached: true });
    await npm.until('daemon started');
    const daemonPid = (npm.lines().find((l) => l.msg === 'daemon started') as { pid: number }).pid;
    npm.child.kill('SIGTERM');
    await npm.exited;
    for (const t = Date.now(); alive(daemonPid) && Date.now() - t < 30_000;) await new Promise((r) => setTimeout(r, 100));
    const stillRunning = alive(daemonPid);
    if (stillRunning) process.kill(daemonPid, 'SIGKILL');
    expect(stillRunning, npm.log()).toBe(false);
    expect(npm.log()).toContain('"msg":"daemon stopped"');
  }, 90_000);
});
