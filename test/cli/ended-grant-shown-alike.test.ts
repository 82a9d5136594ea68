import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudit } from '../../src/store/audit.ts';
import { issueGrant } from '../../src/store/grants.ts';
import { createJob, type NewJob } from '../../src/store/jobs.ts';
import type { GrantRow, JobRow } from '../../src/store/schema.ts';
import { osAccount } from '../../src/util/process-identity.ts';
import { runCli } from '../support/cli.ts';
import { tamper, useTestDatabase } from '../support/db.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

// A job's ended grant is one fact: jobs list, jobs show, grants show, grants list and runs show give it alike.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-ended-grant-'));
let env: NodeJS.ProcessEnv;
const base = (name: string): NewJob => ({
  name, owner: 'alice', created_by: 'alice', schedule: '0 4 * * *', timezone: 'UTC', tools: [], paused: false,
  payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, next_fire_at: new Date('2099-01-01T04:00:00Z'),
});
const SECRET = 'abcd1234efgh5678';
const json = async (args: string[]) => {
  const r = await runCli([...args, '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as unknown;
};

let revoked: JobRow;
let revokedGrant: GrantRow;
let older: JobRow;

beforeAll(async () => {
  const file = join(dir, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema));
  env = { ECHO_AGENT_CONFIG: file };
  const db = database().db;
  revoked = await createJob(db, base('revoked-from-cli'));
  revokedGrant = await issueGrant(db, { job_id: revoked.id, approval_id: 'apr_a', approver: 'dave', channel: 'cli', tool_scope: null });
  // a name given with --as is free text, like the reason: a pasted credential must not come back in clear (I11)
  const r = await runCli(['grants', 'revoke', revoked.id, '--why', `rotated password=${SECRET}`, '--as', `ops token=${SECRET}`], { env });
  expect(r.code, r.stderr).toBe(0);
  // an ending record written before data.from: the account is in data.origin
  older = await createJob(db, base('ended-by-older-build'));
  const grant = await issueGrant(db, { job_id: older.id, approval_id: 'apr_b', approver: 'dave', channel: 'cli', tool_scope: null });
  await tamper(database(), `update job_grants set revoked_at = now(), revoked_by = 'carol', revoked_why = 'older build' where id = '${grant.id}'`);
  await appendAudit(db, { kind: 'grant.revoked', actor: 'carol', job_id: older.id, reason: 'older build', data: { grant_id: grant.id, origin: { os_account: 'carol', host: 'old-host' } } });
  // a pruned run that started under the revoked grant: runs show finds the grant through its run.started record
  await appendAudit(db, { kind: 'run.started', job_id: revoked.id, run_id: 'run_pruned', data: { grant_id: revokedGrant.id, cron_authorized: true } });
});

describe('an ended grant, wherever it is shown', () => {
  it('jobs list --json gives the same ended grant as jobs show and grants show, beside the keys it had', async () => {
    const listed = (await json(['jobs', 'list'])) as { id: string; grant_ended: Record<string, unknown> | null }[];
    const shown = (await json(['jobs', 'show', revoked.id])) as { last_grant: Record<string, unknown> };
    const report = (await json(['grants', 'show', revoked.id])) as { last_grant: Record<string, unknown> };
    const ended = listed.find((j) => j.id === revoked.id)!.grant_ended!;
    expect(shown.last_grant).toMatchObject({ id: revokedGrant.id, ended_by: 'ops token=[REDACTED]', why: 'rotated password=[REDACTED]', ended_from: { os_account: osAccount(), host: hostname() } });
    expect(report.last_grant).toEqual(shown.last_grant);
    expect(ended).toMatchObject(shown.last_grant);
    // the keys jobs list --json gave before stay
    expect(ended).toMatchObject({ grant_id: revokedGrant.id, at: shown.last_grant.ended_at, by: 'ops token=[REDACTED]', why: 'rotated password=[REDACTED]' });
  });

  it('redacts who ended it in every listing, the table and runs show too', async () => {
    const outputs = await Promise.all([
      ['jobs', 'list'], ['jobs', 'list', '--json'], ['grants', 'list', '--all'], ['grants', 'list', '--all', '--json'],
      ['runs', 'show', 'run_pruned'], ['runs', 'show', 'run_pruned', '--json'],
    ].map((args) => runCli(args, { env })));
    for (const r of outputs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain(SECRET);
    }
    const grants = (await json(['grants', 'list', '--all'])) as { id: string; revoked_by: string }[];
    expect(grants.find((g) => g.id === revokedGrant.id)!.revoked_by).toBe('ops token=[REDACTED]');
  });

  it('names the OS account an older ending record kept as data.origin', async () => {
    const shown = (await json(['jobs', 'show', older.id])) as { last_grant: { ended_from: unknown } };
    expect(shown.last_grant.ended_from).toEqual({ os_account: 'carol', host: 'old-host' });
    const listed = (await json(['jobs', 'list'])) as { id: string; grant_ended: { ended_from: unknown } | null }[];
    expect(listed.find((j) => j.id === older.id)!.grant_ended!.ended_from).toEqual({ os_account: 'carol', host: 'old-host' });
    const grants = (await json(['grants', 'list', '--all'])) as { job_id: string; revoked_from: unknown }[];
    expect(grants.find((g) => g.job_id === older.id)!.revoked_from).toEqual({ os_account: 'carol', host: 'old-host' });
  });
});
