import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL, useRedisPrefix } from '../support/redis.ts';

// systemd's ProcSubset=pid mounts a /proc without /proc/sys: the daemon's worker id then lacks the kernel boot id,
// and a daemon restarted after a kill cannot tell that this one is gone. It must say so, not fall back silently.
const database = useTestDatabase();
const prefix = useRedisPrefix('test-identity');
const asRoot = process.getuid?.() === 0;

describe('a daemon that cannot read its boot id', () => {
  it.skipIf(!asRoot)('warns at start that a restarted daemon would wait out the lease, and names its worker without the boot id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-identity-'));
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, [
      'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
      'queue:', `  redis_url: ${TEST_REDIS_URL}`, `  prefix: ${prefix}`,
      'daemon:', `  data_dir: ${join(dir, 'data')}`, '  http:', '    port: 0', '',
    ].join('\n'));
    // a mount namespace of its own, with /proc as ProcSubset=pid mounts it
    const child = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', `mount -t proc -o subset=pid proc /proc && exec "${process.execPath}" "${BIN}" daemon`], {
      cwd: ROOT, env: { ...process.env, ECHO_AGENT_CONFIG: config }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    for (const t = Date.now(); !log.includes('daemon started'); await new Promise((r) => setTimeout(r, 100))) {
      if (child.exitCode !== null || Date.now() - t > 60_000) throw new Error(`the daemon did not start:\n${log}`);
    }
    child.kill('SIGTERM');
    expect(await exited, log).toBe(0);
    const warning = log.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; worker?: string }).find((l) => l.msg.includes('cannot read its kernel boot id'));
    expect(warning?.msg).toContain('waits out daemon.lease_seconds');
    expect(warning?.worker).toMatch(/^[^@]+:\d+$/);
  }, 90_000);
});
