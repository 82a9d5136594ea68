import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createChildJob } from '../../src/jobs/child-jobs.ts';
import { appendAudits, listAudit } from '../../src/store/audit.ts';
import { issueGrant } from '../../src/store/grants.ts';
import { createJob } from '../../src/store/jobs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { runCli } from '../support/cli.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// "Who approved that, and who took it back?": grant records read from the audit log alone.
const database = useTestDatabase();
let env: NodeJS.ProcessEnv;
const me = `${userInfo().username}@${hostname()}`;

interface Listed {
  seq: number; kind: string; actor: string | null; rule: string | null; outcome: string | null; data: Record<string, unknown>;
  authority: { kind: string; by?: string | null; ref: string; text: string } | null;
}

beforeAll(() => {
  const file = join(mkdtempSync(join(tmpdir(), 'echo-audit-grants-')), 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema));
  env = { ECHO_AGENT_CONFIG: file };
});

async function listed(args: string[]): Promise<Listed[]> {
  const r = await runCli(['audit', 'list', ...args, '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listed[];
}

/** The table's rows as cells, cut where the header's columns start (printTable pads every cell to its column). */
function table(stdout: string): Record<string, string>[] {
  const [header, ...rows] = stdout.trimEnd().split('\n');
  const names = [...header!.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index }));
  return rows.map((row) => Object.fromEntries(names.map((c, i) => [c.name, row.slice(c.at, names[i + 1]?.at ?? undefined).trim()])));
}

describe('grant.issued', () => {
  it('carries the grant policy rule that issued it, so --rule finds every human-approved grant', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'issued' }));
    const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_dave', approver: 'dave', channel: 'cli' });
    const [issued] = await listed(['--job', job.id, '--kind', 'grant.issued']);
    expect(issued).toMatchObject({ rule: 'grant.human_approved', outcome: 'cron_authorized', data: { grant_id: grant.id } });
    expect((await listed(['--rule', 'grant.human_approved'])).map((r) => r.data.grant_id)).toContain(grant.id);
  });
});

describe('grant.revoked', () => {
  it('names the revoker as its authority, not the approver of the grant it ended, and says the grant is no longer in force', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'writer' }));
    const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_dave2', approver: 'dave', channel: 'cli' });
    const revoked = await runCli(['grants', 'revoke', job.id, '--why', 'incident 7', '--as', 'root', '--json'], { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: grant.id, in_force: false });

    const [record] = await listed(['--job', job.id, '--kind', 'grant.revoked']);
    expect(record).toMatchObject({ actor: 'root', data: { grant_id: grant.id, approver: 'dave', in_force: false } });
    expect(record!.authority).toMatchObject({ kind: 'actor', by: 'root', ref: grant.id });
    expect(record!.authority!.text).toMatch(new RegExp(`^revoked by root \\(${me}\\) at \\d{4}-[^;]+; the grant was approved by dave \\(apr_dave2\\)$`));
    // the grant.issued line keeps its approver: that is still who approved it
    const [issued] = await listed(['--job', job.id, '--kind', 'grant.issued']);
    expect(issued!.authority).toMatchObject({ kind: 'grant', by: 'dave' });

    const text = table((await runCli(['audit', 'list', '--job', job.id], { env })).stdout);
    expect(text.find((r) => r.KIND === 'grant.revoked')!.AUTHORITY).toMatch(/^revoked by root \(/);
  });

  it('a grant superseded by a new approval names who approved the new one', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'superseded' }));
    await issueGrant(db, { job_id: job.id, approval_id: 'apr_old', approver: 'dave', channel: 'cli' });
    await issueGrant(db, { job_id: job.id, approval_id: 'apr_new', approver: 'gina', channel: 'cli' });
    const [record] = await listed(['--job', job.id, '--kind', 'grant.superseded']);
    expect(record!.authority).toMatchObject({ kind: 'actor', by: 'gina' });
    expect(record!.authority!.text).toMatch(/^superseded by gina at .*; the grant was approved by dave \(apr_old\)$/);
  });
});

describe('one key for the account a command acted from', () => {
  it('a child job\'s run.queued names its kind as job_origin, not origin', async () => {
    const db = database().db;
    const { job, run } = await createChildJob({ db }, { origin: 'workflow', name: 'child', payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'a' } }] } },
      buildContext({ channel: 'cli', user_id: 'alice' }));
    const [queued] = await listAudit(db, { run_id: run.id, kind: 'run.queued' });
    expect(queued).toMatchObject({ job_id: job.id, data: { job_origin: 'workflow' } });
    expect(queued!.data).not.toHaveProperty('origin');
  });

  it('records written before this build, with data.origin as an account or as a child\'s kind, still list, with the account shown', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'old-records' }));
    await appendAudits(db, [
      { kind: 'approval.answered', actor: 'alice', job_id: job.id, outcome: 'once', data: { approval_id: 'apr_old1', tool: 'cronjob', channel: 'cli', origin: { os_account: 'bob', host: 'old-box' } } },
      { kind: 'run.queued', actor: 'daemon', job_id: job.id, data: { trigger: 'manual', origin: 'workflow', parent_job_id: 'job_p' } },
    ]);
    const text = await runCli(['audit', 'list', '--job', job.id], { env });
    expect(text.code, text.stderr).toBe(0);
    const rows = table(text.stdout);
    expect(rows.find((r) => r.KIND === 'approval.answered')!.ACTOR).toBe('alice (bob@old-box)');
    expect(rows.find((r) => r.KIND === 'run.queued')!.ACTOR).toBe('daemon');
  });
});
