import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { jobAuthorization } from '../../src/cli/jobs-authorization.ts';
import { instantsDroppedByRemoval } from '../../src/jobs/next-fire.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { issueGrant, revokeGrant } from '../../src/store/grants.ts';
import { createJob, getJob, removeJob, type NewJob } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import type { GrantRow, JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { tamper, useTestDatabase } from '../support/db.ts';
import { useRedisPrefix } from '../support/redis.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

// "Which of my jobs will run with their authority tonight, and if not, why?" from the lists people look at most.
const database = useTestDatabase();
const prefix = useRedisPrefix('jobs-list-auth');
const workspace = mkdtempSync(join(tmpdir(), 'echo-jobs-list-auth-'));
let env: NodeJS.ProcessEnv;
const steps = { kind: 'steps' as const, steps: [{ tool: 'list_dir', args: { path: '.' } }] };
const base = (name: string, payload: NewJob['payload'] = steps): NewJob => ({ name, owner: 'alice', created_by: 'alice', schedule: '0 4 * * *', timezone: 'UTC', tools: [], paused: false, payload });
const later = () => new Date(Date.now() + 3_600_000);
const childOf = (parent: JobRow, grantId: string, name: string) => createJob(database().db, {
  ...base(name), schedule: `at ${later().toISOString()}`, next_fire_at: later(), origin: 'workflow', parent_job_id: parent.id, parent_execution_id: `exec-${parent.id}`, parent_grant_id: grantId,
});

const jobs: Record<string, JobRow> = {};
let revokedGrant: GrantRow;

beforeAll(async () => {
  const file = join(workspace, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema, ['queue:', '  redis_url: redis://127.0.0.1:6379', `  prefix: ${prefix}`]));
  env = { ECHO_AGENT_CONFIG: file };
  const { db } = database();
  const grant = (job: JobRow) => issueGrant(db, { job_id: job.id, approval_id: `apr_${job.name}`, approver: 'dave', channel: 'cli', tool_scope: null });
  jobs.authorised = await createJob(db, base('authorised'));
  const authorisedGrant = await grant(jobs.authorised);
  jobs.revoked = await createJob(db, base('revoked'));
  revokedGrant = await grant(jobs.revoked);
  await revokeGrant(db, { job_id: jobs.revoked.id, by: 'root', why: 'incident 42' });
  jobs.tampered = await createJob(db, base('tampered'));
  await grant(jobs.tampered);
  // the only route without a person: the definition edited in SQL
  await tamper(database(), `update jobs set payload = '{"kind":"steps","steps":[{"tool":"write_file","args":{"path":"x","content":"y"}}]}' where id = '${jobs.tampered.id}'`);
  jobs.never = await createJob(db, base('never'));
  jobs.inherits = await childOf(jobs.authorised, authorisedGrant.id, 'inherits');
  jobs.orphan = await childOf(jobs.revoked, revokedGrant.id, 'orphan');
  jobs.stale = await childOf(jobs.authorised, 'grt_replaced', 'stale');
  jobs.removed = await createJob(db, base('removed'));
  await grant(jobs.removed);
  await removeJob(db, jobs.removed.id, { actor: 'alice', why: 'gone' }, instantsDroppedByRemoval);
});

describe('jobs list says whether each job is authorised tonight, and why not', () => {
  it('the AUTHORISED column: yes, or no with the rule id, and who ended a grant the job had', async () => {
    const r = await runCli(['jobs', 'list'], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/NEXT FIRE +AUTHORISED$/);
    const cell = (name: string) => lines.find((l) => l.startsWith(`${jobs[name]!.id} `))?.split(/ {2,}/).at(-1);
    expect(cell('authorised')).toBe('yes');
    expect(cell('inherits')).toBe('yes');
    expect(cell('revoked')).toBe(`no (grant.revoked; grant ${revokedGrant.id} ended by root: incident 42)`);
    expect(cell('tampered')).toBe('no (grant.definition_changed)');
    expect(cell('never')).toBe('no (grant.none)');
    expect(cell('orphan')).toBe('no (grant.parent_none)');
    expect(cell('stale')).toBe('no (grant.parent_changed)');
  });

  it('--json adds to each job its authorisation exactly as a run would judge it, and the grant ended', async () => {
    const r = await runCli(['jobs', 'list', '--all', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { id: string; authorization: Record<string, unknown>; grant_ended: Record<string, unknown> | null }[];
    expect(rows.map((j) => j.id).sort()).toEqual(Object.values(jobs).map((j) => j.id).sort());
    for (const row of rows) {
      const job = (await getJob(database().db, row.id, { includeRemoved: true }))!;
      // as JSON: the CLI prints its times as strings
      expect(row.authorization, job.name).toEqual(JSON.parse(JSON.stringify(await jobAuthorization(database().db, job))));
    }
    const byName = new Map(rows.map((j) => [Object.entries(jobs).find(([, v]) => v.id === j.id)![0], j]));
    expect(byName.get('removed')!.authorization).toMatchObject({ cron_authorized: false, rule: 'grant.job_removed' });
    expect(byName.get('revoked')!.grant_ended).toMatchObject({ grant_id: revokedGrant.id, by: 'root', why: 'incident 42' });
    expect(byName.get('authorised')!.grant_ended).toBeNull();
    expect(byName.get('never')!.grant_ended).toBeNull();
  });
});

describe('jobs run of a job without a live grant', () => {
  it('warns on stderr with the rule, as check call --job notes it, and still queues the run', async () => {
    const r = await runCli(['jobs', 'run', 'never'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^run run_\S+ of job_\S+ queued\n$/);
    expect(r.stderr).toContain(`warning: job ${jobs.never!.id} (never) is not cron_authorized (grant.none: The job has no live grant`);
    expect(await listRuns(database().db, { job_id: jobs.never!.id })).toHaveLength(1);
    const tampered = await runCli(['jobs', 'run', 'tampered'], { env });
    expect(tampered.stderr).toContain('is not cron_authorized (grant.definition_changed:');
    const fine = await runCli(['jobs', 'run', 'authorised'], { env });
    expect(fine.code, fine.stderr).toBe(0);
    expect(fine.stderr).not.toContain('cron_authorized');
  });
});

describe('runs list and jobs runs', () => {
  it('show a child job\'s run by the tool that made it, a person\'s run as manual, and why a run had no authority', async () => {
    const { db } = database();
    const config = defaultConfig({ tools: { workspace, restrict_to_workspace: true } });
    const parent = await createJob(db, base('makes-workflow', { kind: 'steps', steps: [{ tool: 'workflow', args: { action: 'create', name: 'wf-child', steps: [{ tool: 'list_dir', args: { path: '.' } }] } }] }));
    await issueGrant(db, { job_id: parent.id, approval_id: 'apr_wf', approver: 'dave', channel: 'cli', tool_scope: ['workflow', 'list_dir'] });
    const execute = (runId: string) => executeRun({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' }, runId);
    const parentRun = (await manualRun({ db }, parent.id, 'alice'))!;
    await execute(parentRun.id);
    const [childRun] = (await listRuns(db, {})).filter((r) => r.job_id !== parent.id && r.nominal_at >= parentRun.nominal_at && r.trigger === 'manual' && !Object.values(jobs).some((j) => j.id === r.job_id));
    expect(childRun, 'the workflow step made a child job with a queued run').toBeDefined();
    await execute(childRun!.id);
    const neverRun = (await listRuns(db, { job_id: jobs.never!.id }))[0]!;
    await execute(neverRun.id);

    const list = await runCli(['runs', 'list'], { env });
    expect(list.code, list.stderr).toBe(0);
    const line = (id: string) => list.stdout.split('\n').find((l) => l.startsWith(`${id} `)) ?? '';
    expect(line(childRun!.id)).toMatch(/ workflow +succeeded +0 +1 +cron_authorized/);
    expect(line(parentRun.id)).toMatch(/ manual +succeeded +0 +1 +cron_authorized/);
    expect(line(neverRun.id)).toMatch(/ manual +\S+ +\d+ +1 +no \(grant\.none\)/);
    const json = JSON.parse((await runCli(['runs', 'list', '--json'], { env })).stdout) as { id: string; trigger: string; trigger_origin: string | null; authorization_rule: string | null }[];
    // the stored trigger stays as it was (cron | manual); the origin is beside it
    expect(json.find((r) => r.id === childRun!.id)).toMatchObject({ trigger: 'manual', trigger_origin: 'workflow', authorization_rule: 'grant.inherited' });
    expect(json.find((r) => r.id === parentRun.id)).toMatchObject({ trigger: 'manual', trigger_origin: null, authorization_rule: 'grant.valid' });
    expect(json.find((r) => r.id === neverRun.id)).toMatchObject({ authorization_rule: 'grant.none' });
    const ofChild = await runCli(['jobs', 'runs', childRun!.job_id], { env });
    expect(ofChild.stdout).toMatch(new RegExp(`${childRun!.id} .* workflow +succeeded`));
    const shown = await runCli(['runs', 'show', childRun!.id], { env });
    expect(shown.stdout).toContain(`\ntrigger: workflow (a child job's run, made by a workflow call in a run of job ${parent.id}; stored as manual)\n`);
    // a person's run of the child is theirs, not the workflow's
    const again = await runCli(['jobs', 'run', childRun!.job_id], { env });
    expect(again.code, again.stderr).toBe(0);
    const personal = (await listRuns(db, { job_id: childRun!.job_id })).find((r) => r.id !== childRun!.id)!;
    const relisted = await runCli(['jobs', 'runs', childRun!.job_id], { env });
    expect(relisted.stdout.split('\n').find((l) => l.startsWith(personal.id))).toMatch(/ manual +queued /);
  }, 60_000);
});
