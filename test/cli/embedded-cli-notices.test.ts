import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, type CliResult } from '../support/cli.ts';
import { freeServerPort } from '../support/ports.ts';

const asRoot = process.getuid?.() === 0;
const made: string[] = [];
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};
afterAll(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

/** The CLI as OS user nobody (uid 65534): an operator's login account beside a daemon run as root. */
function asNobody(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, uid: 65534, gid: 65534, env: { ...process.env, HOME: tmpdir(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!asRoot)('the embedded database, seen by a command', () => {
  it('a user who may not look into data_dir is told so and whose account to use, not that there is no database (exit 69)', async () => {
    // rule embedded.access_denied: what a daemon run as root leaves (data_dir 0700 root, its cluster inside)
    const dataDir = tempDir('echo-denied-');
    mkdirSync(join(dataDir, 'pg'));
    writeFileSync(join(dataDir, 'pg', 'PG_VERSION'), '17\n');
    const confDir = tempDir('echo-denied-conf-');
    chmodSync(confDir, 0o755);
    const config = join(confDir, 'echo-agent.yaml');
    writeFileSync(config, `daemon:\n  data_dir: ${dataDir}\n`, { mode: 0o644 });
    const r = await asNobody(['jobs', 'list'], { ECHO_AGENT_CONFIG: config });
    expect(r.code, r.stderr).toBe(69);
    expect(r.stderr).toContain(`cannot read ${join(dataDir, 'pg')} (permission denied): run as the daemon's account (root)`);
    expect(r.stderr).not.toContain('no embedded database');
  }, 60_000);

  it('as root, prints no JSON log lines among its prose: "runs as postgres" is routine, a stale postmaster.pid is one plain line', async () => {
    const dir = tempDir('echo-notices-');
    chmodSync(dir, 0o755); // OS user postgres must reach the data directory
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, `daemon:\n  data_dir: ${join(dir, 'state')}\ndatabase:\n  embedded_port: ${await freeServerPort()}\n`);
    const env = { ECHO_AGENT_CONFIG: config };
    const migrated = await runCli(['migrate'], { env, timeoutMs: 120_000 });
    expect(migrated.code, migrated.stderr).toBe(0);
    const listed = await runCli(['jobs', 'list'], { env, timeoutMs: 60_000 });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).not.toContain('{');
    expect(listed.stderr).not.toContain('running as root');

    // what a server killed with -9 leaves: a postmaster.pid naming a process that is gone
    const pidFile = join(dir, 'state', 'pg', 'postmaster.pid');
    const port = readFileSync(config, 'utf8').match(/embedded_port: (\d+)/)![1];
    writeFileSync(pidFile, `999999\n${join(dir, 'state', 'pg')}\n0\n${port}\n\n127.0.0.1\n`);
    const after = await runCli(['jobs', 'list'], { env, timeoutMs: 60_000 });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toMatch(/^echo-agent: warning: removed a stale postmaster\.pid \(its server is not running\) \(file: .*postmaster\.pid, pid: 999999\)\n$/);
  }, 240_000);
});
