import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudits } from '../../src/store/audit.ts';
import { issueGrant } from '../../src/store/grants.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';
import { runCli } from '../support/cli.ts';
import { tamper, useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// "Who approved that?" for a past record is what the chain says, not what the job_grants row says today:
// a row renamed with plain SQL must neither change the answer nor pass unremarked.
const database = useTestDatabase();
let env: NodeJS.ProcessEnv;

interface Listed { seq: number; kind: string; rule: string | null; authority: { kind: string; by?: string | null; ref: string; text: string; record_seq?: number | null; row_differs?: string[] } | null }

beforeAll(() => {
  const file = join(mkdtempSync(join(tmpdir(), 'echo-audit-authority-')), 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema));
  env = { ECHO_AGENT_CONFIG: file };
});

async function listed(args: string[]): Promise<Listed[]> {
  const r = await runCli(['audit', 'list', ...args, '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listed[];
}

/** A run of `jobId` started under `rule`, with one cron_authorized write when the rule is grant.valid. */
async function startedRun(jobId: string, grantId: string, rule: string) {
  const db = database().db;
  const run = (await insertRun(db, { job_id: jobId, nominal_at: new Date(`2026-01-0${rule === 'grant.valid' ? 1 : 2}T03:00:00Z`) }))!;
  const valid = rule === 'grant.valid';
  await appendAudits(db, [
    { kind: 'run.started', actor: 'daemon', job_id: jobId, run_id: run.id, trace_id: run.id, rule, data: { attempt: 1, cron_authorized: valid, grant_id: grantId } },
    ...(valid ? [{ kind: 'gate.decision', actor: 'daemon', job_id: jobId, run_id: run.id, trace_id: run.id, step: 4, rule: 'unattended.cron_authorized', outcome: 'allow', data: { tool: 'write_file', grant_id: grantId } }] : []),
  ]);
  return run.id;
}

describe('AUTHORITY of a grant, after its job_grants row was changed with SQL', () => {
  it('names the approver its grant.issued record holds, and says the row differs from that record', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'renamed-approver' }));
    const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_erin', approver: 'erin', channel: 'cli' });
    const runId = await startedRun(job.id, grant.id, 'grant.valid');
    await tamper(database(), `update job_grants set approver = 'zed' where id = '${grant.id}'`);

    const rows = await listed(['--job', job.id]);
    const issued = rows.find((r) => r.kind === 'grant.issued')!;
    for (const r of [issued, rows.find((x) => x.kind === 'run.started')!, rows.find((x) => x.rule === 'unattended.cron_authorized')!]) {
      expect(r.authority, r.kind).toMatchObject({ kind: 'grant', ref: grant.id, by: 'erin', record_seq: issued.seq, row_differs: ['approver'] });
      expect(r.authority!.text).toContain(`grant ${grant.id}: approved by erin on cli`);
      expect(r.authority!.text).toContain(`grant row differs from its grant.issued record seq ${issued.seq}: approver (row "zed", record "erin")`);
      expect(r.authority!.text).not.toContain('approved by zed');
    }
    // the table a person reads says it too
    const text = await runCli(['audit', 'list', '--run', runId], { env });
    expect(text.stdout).toContain(`grant row differs from its grant.issued record seq ${issued.seq}: approver`);
  });

  it('an untouched row reads as before, with nothing about a difference', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'untouched' }));
    const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_dave', approver: 'dave', channel: 'cli' });
    await startedRun(job.id, grant.id, 'grant.valid');
    for (const r of await listed(['--job', job.id, '--kind', 'run.started'])) {
      expect(r.authority).toMatchObject({ kind: 'grant', by: 'dave' });
      expect(r.authority).not.toHaveProperty('row_differs');
      expect(r.authority!.text).not.toContain('differs');
    }
  });
});

describe('AUTHORITY of a run.started its grant did not authorise', () => {
  it('grant.definition_changed: none, naming the grant and whose it was, not "approved by"', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'changed-payload' }));
    const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_bob', approver: 'bob', channel: 'cli' });
    const runId = await startedRun(job.id, grant.id, 'grant.definition_changed');
    const [started] = await listed(['--run', runId, '--kind', 'run.started']);
    expect(started!.authority).toMatchObject({ kind: 'none', ref: grant.id, by: null });
    expect(started!.authority!.text).toBe(`none: grant ${grant.id} (bob) does not cover this definition (grant.definition_changed)`);
    const shown = await runCli(['runs', 'show', runId], { env });
    expect(shown.stdout.split('\n').find((l) => l.includes('run.started'))).not.toContain('approved by');
  });

  it('grant.none with no grant: none, not an empty cell', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'never-approved' }));
    const run = (await insertRun(db, { job_id: job.id, nominal_at: new Date('2026-01-03T03:00:00Z') }))!;
    await appendAudits(db, [{ kind: 'run.started', actor: 'daemon', job_id: job.id, run_id: run.id, trace_id: run.id, rule: 'grant.none', data: { attempt: 1, cron_authorized: false, grant_id: null } }]);
    const [started] = await listed(['--run', run.id, '--kind', 'run.started']);
    expect(started!.authority).toMatchObject({ kind: 'none', text: 'none: no grant in force (grant.none)' });
  });
});
