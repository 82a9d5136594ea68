import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudits } from '../../src/store/audit.ts';
import { issueGrant } from '../../src/store/grants.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun, markInterrupted, retryRun } from '../../src/store/runs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-ended-retried-'));
let env: NodeJS.ProcessEnv;
let job: JobRow;

/** A run as a claim leaves it for attempt `attempt`: running, its lease already past, its run.started record written. */
async function startedRun(nominal: string, attempt: number): Promise<string> {
  const { db, pool } = database();
  const id = (await insertRun(db, { job_id: job.id, nominal_at: new Date(nominal) }))!.id;
  await pool.query(`update runs set state = 'running', started_at = now(), attempt = $2, lease_owner = 'worker-a', lease_expires_at = now() - interval '1 minute' where id = $1`, [id, attempt]);
  await appendAudits(db, [{ kind: 'run.started', actor: 'daemon', job_id: job.id, run_id: id, trace_id: id, data: { attempt, cron_authorized: true } }]);
  return id;
}

beforeAll(async () => {
  const { db, schema } = database();
  job = await createJob(db, aJob({ name: 'flaky' }));
  await issueGrant(db, { job_id: job.id, approval_id: 'apr_alice', approver: 'alice', channel: 'cli' });
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

describe('a run a lease expiry ended', () => {
  it('runs show takes its cron_authorized from its run.started record without saying the run has not finished', async () => {
    const id = await startedRun('2026-02-01T03:00:00Z', 1);
    // what the reconciler does when the holder is gone and no retry is left
    expect(await markInterrupted(database().db, { run_id: id, leaseExpired: true, reason: 'lease expired: worker-a is gone' })).not.toBeNull();
    const r = await runCli(['runs', 'show', id], { env });
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('cron_authorized: '));
    expect(line).toMatch(/^cron_authorized: true \(from its run\.started record: the run ended as interrupted/);
    expect(r.stdout).not.toContain('has not finished');
  });
});

describe('a retry in progress', () => {
  let id: string;
  beforeAll(async () => {
    id = await startedRun('2026-02-02T03:00:00Z', 1);
    // attempt 1 failed and was put back to retry; the claim of attempt 2 keeps its error in the row
    await retryRun(database().db, { run_id: id, error: 'connection reset by peer', backoff_ms: 0 });
    await database().pool.query(`update runs set state = 'running', attempt = 2, started_at = now(), lease_expires_at = now() + interval '5 minutes' where id = $1`, [id]);
  });

  it('runs list shows the error beside it as the earlier attempt\'s, not the running one\'s', async () => {
    const r = await runCli(['runs', 'list', '--job', job.id], { env });
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.includes(id))!;
    expect(line).toMatch(/running\s.*attempt 1: connection reset by peer/);
  });

  it('runs list --json keeps the row whole: the error as stored and the attempt running', async () => {
    const r = await runCli(['runs', 'list', '--job', job.id, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const row = (JSON.parse(r.stdout) as { id: string; state: string; attempt: number; error: string }[]).find((x) => x.id === id);
    expect(row).toMatchObject({ state: 'running', attempt: 2, error: 'connection reset by peer' });
  });

  it('runs show names the attempt the error came from too', async () => {
    const r = await runCli(['runs', 'show', id], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('error: attempt 1: connection reset by peer');
  });

  it('jobs show lists it among the recent runs the same way', async () => {
    const r = await runCli(['jobs', 'show', job.id], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').find((l) => l.includes(id))).toMatch(/running\s.*attempt 1: connection reset by peer/);
  });
});
