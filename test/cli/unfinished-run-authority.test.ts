import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudits } from '../../src/store/audit.ts';
import { issueGrant } from '../../src/store/grants.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// The runs row learns cron_authorized when the run finishes. A run still running, or one a lease expiry
// ended, showed AUTH "-" (as if it ran without a grant) though its run.started record says it held one.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-unfinished-auth-'));
let env: NodeJS.ProcessEnv;
let runId: string;

beforeAll(async () => {
  const { db, schema, pool } = database();
  const job = await createJob(db, aJob({ name: 'long-runner' }));
  const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_alice', approver: 'alice', channel: 'cli' });
  runId = (await insertRun(db, { job_id: job.id, nominal_at: new Date('2026-01-01T03:00:00Z') }))!.id;
  // as a claim leaves it: running, started, nothing about its authorisation in the row yet
  await pool.query(`update runs set state = 'running', started_at = now(), attempt = 1 where id = $1`, [runId]);
  await appendAudits(db, [{ kind: 'run.started', actor: 'daemon', job_id: job.id, run_id: runId, trace_id: runId, data: { attempt: 1, cron_authorized: true, grant_id: grant.id } }]);
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

describe('a run that has not finished', () => {
  it('jobs runs shows the authorisation it started with', async () => {
    const r = await runCli(['jobs', 'runs', 'long-runner'], { env });
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.includes(runId))!;
    expect(line).toMatch(/running\s.*cron_authorized/);
  });

  it('runs show says it held cron_authorized as it started, and names its grant', async () => {
    const r = await runCli(['runs', 'show', runId], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('cron_authorized: true (from its run.started record: the run has not finished)');
    expect(r.stdout).toMatch(/grant: grt_\S+, approved by alice on cli/);
  });
});

describe('a run the job\'s grant did not cover', () => {
  it('runs show does not call that grant its authority: it says the grant did not authorise the run, and why', async () => {
    const { db } = database();
    const job = await createJob(db, aJob({ name: 'changed-since' }));
    const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_bob', approver: 'bob', channel: 'cli' });
    const run = (await insertRun(db, { job_id: job.id, nominal_at: new Date('2026-01-02T03:00:00Z') }))!;
    await appendAudits(db, [{
      kind: 'run.started', actor: 'daemon', job_id: job.id, run_id: run.id, trace_id: run.id, rule: 'grant.definition_changed',
      reason: 'The job definition changed after the human approval; the grant no longer covers it.', data: { attempt: 1, cron_authorized: false, grant_id: grant.id },
    }]);
    await database().pool.query(`update runs set state = 'denied', cron_authorized = false, grant_id = $2, finished_at = now() where id = $1`, [run.id, grant.id]);
    const r = await runCli(['runs', 'show', run.id], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`grant: ${grant.id}, which did not authorise this run (grant.definition_changed: The job definition changed after the human approval`);
    expect(r.stdout).not.toContain('still live');
  });
});
