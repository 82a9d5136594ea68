import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL as REDIS_URL, useRedisPrefix } from '../support/redis.ts';

const prefix = useRedisPrefix('test-signals');
const database = useTestDatabase();

/** Starts the real daemon binary on the test database, sends `signal` once it has started, and returns its exit code and log. */
async function stopWith(signal: NodeJS.Signals): Promise<{ code: number | null; lines: Record<string, unknown>[]; log: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'echo-signals-'));
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    'queue:', `  redis_url: ${REDIS_URL}`, `  prefix: ${prefix}`,
    'daemon:', `  data_dir: ${join(dir, 'data')}`, '  reconcile_seconds: 600', '  http:', '    port: 0', '',
  ].join('\n'));
  const child = spawn(process.execPath, [BIN, 'daemon'], { cwd: ROOT, env: { ...process.env, ECHO_AGENT_CONFIG: config }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  const t = Date.now();
  while (!log.includes('daemon started')) {
    if (child.exitCode !== null || Date.now() - t > 60_000) {
      child.kill('SIGKILL');
      throw new Error(`the daemon did not start\n${log.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill(signal);
  const code = await exited;
  const lines = log.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, lines, log };
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
