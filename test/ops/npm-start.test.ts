import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';
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
    const dir = mkdtempSync(join(tmpdir(), 'echo-npm-start-'));
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, [
      'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
      'queue:', `  redis_url: ${TEST_REDIS_URL}`, `  prefix: ${prefix}`,
      'daemon:', `  data_dir: ${join(dir, 'data')}`, '  http:', '    port: 0', '',
    ].join('\n'));
    // its own process group, as a supervisor starts it: a signal to npm alone, not to the group
    const npm = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: { ...process.env, ECHO_AGENT_CONFIG: config }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let log = '';
    npm.stdout.on('data', (d) => (log += d));
    npm.stderr.on('data', (d) => (log += d));
    const exited = new Promise<void>((r) => npm.once('exit', () => r()));
    for (const t = Date.now(); !log.includes('daemon started'); await new Promise((r) => setTimeout(r, 100))) {
      if (npm.exitCode !== null || Date.now() - t > 60_000) throw new Error(`the daemon did not start:\n${log}`);
    }
    const daemonPid = (JSON.parse(log.split('\n').find((l) => l.includes('daemon started'))!) as { pid: number }).pid;
    npm.kill('SIGTERM');
    await exited;
    for (const t = Date.now(); alive(daemonPid) && Date.now() - t < 30_000;) await new Promise((r) => setTimeout(r, 100));
    const stillRunning = alive(daemonPid);
    if (stillRunning) process.kill(daemonPid, 'SIGKILL');
    expect(stillRunning, log).toBe(false);
    expect(log).toContain('"msg":"daemon stopped"');
  }, 90_000);
});
