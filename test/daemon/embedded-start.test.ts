import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, waitingApproval } from '../support/cli.ts';
import { until } from '../support/until.ts';

// A fresh data dir and config: no database.url, no queue.redis_url — the embedded default.
const dir = mkdtempSync(join(tmpdir(), 'echo-embedded-'));
chmodSync(dir, 0o755);
// below the kernel's range for outgoing connections (32768–60999): a port the suite's own client connections
// hold in TIME_WAIT cannot be bound, and this file starts the server on it several times
const port = 20000 + Math.floor(Math.random() * 10000);
const configFile = join(dir, 'echo-agent.yaml');
writeFileSync(configFile, [
  'daemon:', `  data_dir: ${join(dir, 'data')}`, '  tick_seconds: 0.5', '  reconcile_seconds: 600', '  http:', '    port: 0',
  'database:', `  embedded_port: ${port}`, 'logging:', '  level: info', '',
].join('\n'));
const env = { ECHO_AGENT_CONFIG: configFile };
let daemon: ChildProcess | undefined;
let daemonLog = '';

afterAll(async () => {
  if (daemon && daemon.exitCode === null) {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon!.once('exit', r));
  }
});

/** Polls one check at a time (each may spawn a CLI process); a failure carries the daemon's log. */
const waitFor = (pred: () => boolean | Promise<boolean>, ms: number, what: string) => until(what, pred, ms, 250, () => daemonLog.slice(-3000));

describe('npm start on the embedded default', () => {
  it('boots an embedded PostgreSQL, migrates, and runs a job from jobs/ approved by a human', async () => {
    daemon = spawn(process.execPath, [BIN, 'daemon'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    daemon.stdout!.on('data', (d) => (daemonLog += d));
    daemon.stderr!.on('data', (d) => (daemonLog += d));
    await waitFor(() => {
      // a daemon that exited will not start: say so now, with its log, rather than after the whole wait
      if (daemon!.exitCode !== null || daemon!.signalCode !== null) throw new Error(`the daemon exited before it started\n${daemonLog.slice(-3000)}`);
      return daemonLog.includes('daemon started');
    }, 90_000, 'daemon start');
    expect(daemonLog).toContain('database ready');
    for (const line of daemonLog.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();

    // jobs create without a terminal: the request waits for `approvals approve`
    // what the command printed, as the person who ran it reads it: the request and its code
    const seen: { waiting?: { id: string; code: string } | null } = {};
    const creating = runCli(['jobs', 'create', '--file', 'jobs/heartbeat.yaml', '--as', 'alice', '--json'], { env, timeoutMs: 90_000, onStderr: (text) => { seen.waiting ??= waitingApproval(text); } });
    await waitFor(() => Boolean(seen.waiting), 60_000, 'pending approval');
    const approved = await runCli(['approvals', 'approve', seen.waiting!.id, '--as', 'alice'], { env, input: `${seen.waiting!.code}\n` });
    expect(approved.code, approved.stderr).toBe(0);
    const created = await creating;
    expect(created.code, created.stderr).toBe(0);
    const out = JSON.parse(created.stdout) as { decision: { step: number; approval_source: string }; result: { output: { job: { id: string }; cron_authorized: boolean } } };
    expect(out.decision).toMatchObject({ step: 11, approval_source: 'human' });
    expect(out.result.output.cron_authorized).toBe(true);
    const jobId = out.result.output.job.id;

    expect((await runCli(['jobs', 'run', jobId], { env })).code).toBe(0);
    let state = '';
    await waitFor(async () => {
      const r = await runCli(['jobs', 'runs', jobId, '--json'], { env });
      if (r.code === 0) state = (JSON.parse(r.stdout) as { state: string; trigger: string }[]).find((x) => x.trigger === 'manual')?.state ?? '';
      return state === 'succeeded' || state === 'failed';
    }, 60_000, 'the run to finish');
    expect(state).toBe('succeeded');

    const show = await runCli(['grants', 'show', jobId, '--json'], { env });
    expect(JSON.parse(show.stdout)).toMatchObject({ authorization: { cron_authorized: true }, grant: { approver: 'alice', definition_matches: true, answered_from: { os_account: userInfo().username } } });
    const verify = await runCli(['audit', 'verify'], { env });
    expect(verify.code, verify.stdout).toBe(0);

    daemon.kill('SIGTERM');
    const code = await new Promise((r) => daemon!.once('exit', r));
    expect(code).toBe(0);
    expect(daemonLog).toContain('daemon stopped');
  }, 240_000);

  it('exits 69 when its embedded PostgreSQL is killed under it, and the next start brings both back', async () => {
    let log = '';
    const start = () => {
      log = '';
      const child = spawn(process.execPath, [BIN, 'daemon'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.on('data', (d) => (log += d));
      child.stderr!.on('data', (d) => (log += d));
      daemon = child;
      return child;
    };
    const started = (what: string) => until(what, () => log.includes('daemon started'), 90_000, 100, () => log.slice(-3000));
    /** The daemon's exit code; a daemon still running after `ms` fails the test with its log, not the test's timeout. */
    const exited = (child: ChildProcess, ms: number, what: string) => new Promise<number | null>((resolve, reject) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      const timer = setTimeout(() => reject(new Error(`the daemon did not exit ${what} within ${ms} ms\n${log.slice(-4000)}`)), ms);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    const first = start();
    await started('daemon start');
    const pid = Number(readFileSync(join(dir, 'data', 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    const code = await exited(first, 60_000, 'after its server was killed');
    expect(code, log.slice(-2000)).toBe(69);
    expect(log).toMatch(/embedded PostgreSQL server \(pid \d+\) exited unexpectedly \(signal SIGKILL\)/);
    // what a supervisor (systemd Restart=on-failure) does next
    const second = start();
    await started('daemon restart');
    second.kill('SIGTERM');
    expect(await exited(second, 60_000, 'on SIGTERM')).toBe(0);
  }, 300_000);

  // SIGHUP stops as cleanly but exits 129: admins send HUP expecting a reload, and on-failure must start the daemon again
  it.each([['SIGINT', 0], ['SIGHUP', 129]] as const)('%s to the whole foreground group (Ctrl-C, a closed terminal) is a clean stop, exit %i: the server, in a group of its own, is stopped last', async (signal, exitCode) => {
    let log = '';
    const child = spawn(process.execPath, [BIN, 'daemon'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    daemon = child;
    child.stdout!.on('data', (d) => (log += d));
    child.stderr!.on('data', (d) => (log += d));
    await until('daemon start', () => log.includes('daemon started'), 90_000, 100, () => log.slice(-3000));
    process.kill(-child.pid!, signal);
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code, log.slice(-2000)).toBe(exitCode);
    expect(log).not.toContain('exited unexpectedly');
    // the server did not go down with the signal: the daemon still read the audit head while stopping, then stopped it
    expect(log.match(/audit chain head/g)?.length, log.slice(-2000)).toBe(2);
    expect(log).not.toContain('noting the audit head failed');
    expect(log.lastIndexOf('embedded PostgreSQL stopped')).toBeGreaterThan(log.lastIndexOf('audit chain head'));
  }, 180_000);
});
