import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { authorizationFor, clearChangedOutside, issueGrant, listGrants, liveGrant } from '../../src/store/grants.ts';
import { createJob, type NewJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { runCli } from '../support/cli.ts';
import { tamper, useTestDatabase } from '../support/db.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

// SPEC I2: a definition changed by no human-approved call clears the grant. A raw-SQL edit is one: the first run
// that sees it ends the grant with a chained record, and putting the old definition back does not bring it back.
const database = useTestDatabase({ poolMax: 6 });
const workspace = mkdtempSync(join(tmpdir(), 'echo-grant-outside-'));
let env: NodeJS.ProcessEnv;
const config = defaultConfig({ tools: { workspace, restrict_to_workspace: true } });
const approved = { kind: 'steps' as const, steps: [{ tool: 'list_dir', args: { path: '.' } }] };
const base = (name: string): NewJob => ({
  name, owner: 'alice', created_by: 'alice', schedule: '0 4 * * *', timezone: 'UTC', tools: ['list_dir', 'write_file'], paused: false, payload: approved,
});
const execute = (runId: string) => executeRun({
  db: database().db, config, tools: builtinTools(config, { db: database().db }), guard: createGuard(config, systemGuardDeps({ dns: false })),
  logger: silentLogger, workerId: 'test:1',
}, runId);
const sqlEdit = (jobId: string, payload: unknown) => tamper(database(), `update jobs set payload = '${JSON.stringify(payload)}'::jsonb where id = '${jobId}'`);

beforeAll(() => {
  const file = join(workspace, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema));
  env = { ECHO_AGENT_CONFIG: file };
});

describe('a definition changed outside echo-agent', () => {
  it('the first run to see it clears the grant with a record; reverting the SQL does not bring the grant back', async () => {
    const { db } = database();
    const job = await createJob(db, base('writer2'));
    const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_w2', approver: 'bob', channel: 'cli', tool_scope: ['list_dir', 'write_file'] });
    await sqlEdit(job.id, { kind: 'steps', steps: [{ tool: 'write_file', args: { path: 'x.txt', content: 'pwned' } }] });
    const run = (await manualRun({ db }, job.id, 'alice'))!;
    await execute(run.id);

    expect(await liveGrant(db, job.id)).toBeNull();
    const cleared = await listAudit(db, { job_id: job.id, kind: 'grant.cleared' });
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatchObject({ actor: 'daemon', rule: 'grant.changed_outside', run_id: run.id, data: { grant_id: grant.id, in_force: false, definition_hash_approved: grant.definition_hash } });
    expect(cleared[0]!.reason).toMatch(/^definition changed outside echo-agent/);
    const [started] = await listAudit(db, { run_id: run.id, kind: 'run.started' });
    expect(started).toMatchObject({ rule: 'grant.changed_outside', data: { cron_authorized: false, grant_id: null, ended_grant: { id: grant.id, ending: 'grant.cleared', ended_by: 'daemon' } } });
    expect((await getRun(db, run.id))!.cron_authorized).toBe(false);

    // the SQL put back: the grant stays ended, and the job says why
    await sqlEdit(job.id, approved);
    expect(await authorizationFor(db, job.id)).toMatchObject({ cron_authorized: false, rule: 'grant.changed_outside', ended_grant: { id: grant.id } });
    const shown = await runCli(['grants', 'show', job.id], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('cron_authorized: no (grant.changed_outside:');
    expect(shown.stdout).toMatch(new RegExp(`grant: none; the last one, ${grant.id} \\(approved by bob .*\\), ended at \\S+ by daemon: definition changed outside echo-agent`));
    const again = (await manualRun({ db }, job.id, 'alice'))!;
    await execute(again.id);
    expect((await listAudit(db, { run_id: again.id, kind: 'run.started' }))[0]).toMatchObject({ rule: 'grant.changed_outside', data: { cron_authorized: false } });
    expect(await listAudit(db, { job_id: job.id, kind: 'grant.cleared' })).toHaveLength(1);
    const runShown = await runCli(['runs', 'show', again.id], { env });
    expect(runShown.stdout).toMatch(new RegExp(`grant: - \\(none: grant ${grant.id} cleared \\d+ ms before the run started, at \\S+, by daemon: definition changed outside echo-agent`));
    expect((await verifyAudit(db)).ok).toBe(true);
  });

  it('replicas that see it at once make one clear and one record', async () => {
    const { db } = database();
    const job = await createJob(db, base('raced'));
    const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_r', approver: 'bob', channel: 'cli', tool_scope: null });
    await sqlEdit(job.id, { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: 'elsewhere' } }] });
    const results = await Promise.all(Array.from({ length: 5 }, () => clearChangedOutside(db, job.id, grant.id)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await listAudit(db, { job_id: job.id, kind: 'grant.cleared' })).toHaveLength(1);
    expect((await listGrants(db, { job_id: job.id, includeRevoked: true }))[0]).toMatchObject({ id: grant.id, revoked_by: 'daemon' });
  });

  it('a grant whose definition still matches is not cleared', async () => {
    const { db } = database();
    const job = await createJob(db, base('untouched'));
    const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_u', approver: 'bob', channel: 'cli', tool_scope: null });
    expect(await clearChangedOutside(db, job.id, grant.id)).toBeNull();
    const run = (await manualRun({ db }, job.id, 'alice'))!;
    await execute(run.id);
    expect((await getRun(db, run.id))!.cron_authorized).toBe(true);
    expect(await liveGrant(db, job.id)).toMatchObject({ id: grant.id });
  });
});
