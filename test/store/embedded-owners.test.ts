import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedUrl } from '../../src/store/embedded.ts';
import { freeServerPort } from '../support/ports.ts';

// Rule embedded.last_out_stops: of the processes using the embedded server, the last one out stops it.
const SLOW = 180_000;
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const CHILD = path.join(ROOT, 'test/support/embedded-owner-child.ts');
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) {
    const pid = await serverPid(d);
    if (pid) try { process.kill(pid, 'SIGINT'); } catch { /* gone */ }
  }
  for (const d of dirs) {
    for (let i = 0; i < 300 && (await serverPid(d)); i++) await new Promise((r) => setTimeout(r, 100));
    await fs.rm(d, { recursive: true, force: true });
  }
});

async function serverPid(dataDir: string): Promise<number> {
  const text = await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(text.split('\n')[0]);
  if (!pid) return 0;
  try { process.kill(pid, 0); return pid; } catch { return 0; }
}

interface User { child: ChildProcess; lines: Record<string, unknown>[]; stop(): Promise<void> }

/** A process using the server (a command; `adopt`: a daemon), once it has started or joined it. */
async function user(dataDir: string, port: number, adopt = false): Promise<User> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), ADOPT: adopt ? '1' : '0' }, stdio: ['pipe', 'pipe', 'inherit'], detached: true,
  });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  let rest = '';
  child.stdout!.on('data', (d) => {
    rest += d;
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const l of parts.filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
  });
  const exited = new Promise((r) => child.once('exit', r));
  await expect.poll(() => lines.some((l) => l.marker === 'started'), { timeout: 120_000 }).toBe(true);
  return { child, lines, stop: async () => { child.stdin!.write('stop\n'); await exited; } };
}

async function fresh(): Promise<{ dataDir: string; port: number }> {
  // 0755 and owned by root: as root the server runs as OS user postgres, which must reach it
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'echo-owners-'));
  await fs.chmod(dataDir, 0o755);
  dirs.push(dataDir);
  return { dataDir, port: await freeServerPort() };
}

async function answers(dataDir: string, port: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: await embeddedUrl(dataDir, port) });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

describe('the embedded server with no daemon: the last process out stops it', () => {
  it('the command that started it leaves it to a second command still using it (a warning naming it), which stops it when it ends', async () => {
    const { dataDir, port } = await fresh();
    const first = await user(dataDir, port);
    const second = await user(dataDir, port);
    expect(first.lines.find((l) => l.marker === 'started')?.owned).toBe(true);
    expect(second.lines.find((l) => l.marker === 'started')?.owned).toBe(false);
    await first.stop();
    const left = first.lines.find((l) => l.level === 'warn' && String(l.msg).startsWith('embedded PostgreSQL left running'));
    expect(left, JSON.stringify(first.lines)).toMatchObject({ owner_pid: second.child.pid, now_owned_by: `echo-agent command (pid ${second.child.pid})` });
    expect(await answers(dataDir, port)).toBe(true);
    await second.stop();
    await expect.poll(() => serverPid(dataDir), { timeout: 30_000 }).toBe(0);
  }, SLOW);

  it('two commands ending at the same moment: one of them stops it (the decision is taken under the start lock)', async () => {
    const { dataDir, port } = await fresh();
    const first = await user(dataDir, port);
    const second = await user(dataDir, port);
    await Promise.all([first.stop(), second.stop()]);
    await expect.poll(() => serverPid(dataDir), { timeout: 30_000 }).toBe(0);
  }, SLOW);

  it('a daemon that stops while a command uses its server leaves it to the command (a warning naming it), which stops it', async () => {
    const { dataDir, port } = await fresh();
    const daemon = await user(dataDir, port, true);
    const command = await user(dataDir, port);
    await daemon.stop();
    expect(daemon.lines.find((l) => l.level === 'warn' && String(l.msg).startsWith('embedded PostgreSQL left running'))).toMatchObject({ owner_pid: command.child.pid });
    expect(await answers(dataDir, port)).toBe(true);
    await command.stop();
    await expect.poll(() => serverPid(dataDir), { timeout: 30_000 }).toBe(0);
  }, SLOW);
});
