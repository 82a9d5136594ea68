import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';
import { TEST_DATABASE_URL } from '../support/db.ts';

const schema = `bq_${randomBytes(5).toString('hex')}`;

afterAll(async () => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  await client.query(`drop schema if exists "${schema}" cascade`);
  await client.end();
});

describe('a queue worker whose connection fails while it is set up', () => {
  it('does not run: the start fails with the cause (the queue\'s too), and the process stays responsive', async () => {
    // in a child process: a worker that spun on the failed setup would starve this test's own timers too
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/queue-bootstrap-child.ts'], {
      cwd: ROOT, env: { ...process.env, QUEUE_SCHEMA: schema }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const exited = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(false); }, 45_000);
      child.once('exit', () => { clearTimeout(timer); resolve(true); });
    });
    expect(exited, `the child hung (its event loop starved?):\n${out}${err}`).toBe(true);
    const [first, second] = out.trim().split('\n');
    expect(first, err).toBeDefined();
    expect(JSON.parse(first!)).toMatchObject({
      ran: false, error: expect.stringContaining("the queue worker's connection is not ready"), queue: expect.stringContaining("the queue's connection is not ready"),
    });
    expect(second).toBe('event loop alive');
  }, 60_000);
});
