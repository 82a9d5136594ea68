import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { deliveryLine, grantLine, jobModel, modelLine } from '../../src/cli/job-display.ts';
import { instantsDroppedByRemoval } from '../../src/jobs/next-fire.ts';
import { childJobsCovered, MAX_ANCESTRY, runAuthorization } from '../../src/jobs/run-authorization.ts';
import { issueGrant, liveGrant } from '../../src/store/grants.ts';
import { createJob, removeJob, type NewJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import type { GrantRow, JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-grants-finished-'));
let env: NodeJS.ProcessEnv;
let credentialed: NodeJS.ProcessEnv;
const steps = { kind: 'steps' as const, steps: [{ tool: 'read_file', args: { path: 'x' } }] };
const base = (name: string, extra: Partial<NewJob> = {}): NewJob => ({
  name, owner: 'alice', created_by: 'alice', schedule: '0 4 * * *', timezone: 'UTC', tools: [], paused: false, payload: steps, next_fire_at: new Date('2099-01-01T04:00:00Z'), ...extra,
});
/** A one-shot child job its parent's run made under `grant`; `at` null: its instant has passed (the scheduler cleared next_fire_at). */
const childOf = (parent: JobRow, grant: Pick<GrantRow, 'id'>, name: string, at: Date | null, origin: 'task' | 'workflow' | 'spawn_task' = 'workflow') => createJob(database().db, {
  ...base(name), schedule: 'at 2098-06-01T00:00:00Z', next_fire_at: at, origin, parent_job_id: parent.id, parent_execution_id: `exec-${parent.id}`, parent_grant_id: grant.id,
});

let parent: JobRow;
let grant: GrantRow;
let pending: JobRow;
let queued: JobRow;
let done: JobRow[];

const configFile = (name: string, lines: string[]) => {
  const file = join(dir, name);
  writeFileSync(file, schemaConfigYaml(database().schema, lines));
  return { ECHO_AGENT_CONFIG: file };
};

beforeAll(async () => {
  env = configFile('echo-agent.yaml', ['model:', '  base_url: http://127.0.0.1:9/v1', '  name: small']);
  credentialed = configFile('credentialed.yaml', ['model:', '  base_url: http://127.0.0.1:9/v1?api_key=hunter2secretvalue123', '  name: small']);
  const db = database().db;
  parent = await createJob(db, base('writer'));
  grant = await issueGrant(db, { job_id: parent.id, approval_id: 'apr_writer', approver: 'dave', channel: 'cli', tool_scope: null });
  pending = await childOf(parent, grant, 'child-pending', new Date('2098-06-01T00:00:00Z'));
  // its instant fired, its run has not finished: still something the grant lets run
  queued = await childOf(parent, grant, 'child-queued', null);
  await insertRun(db, { job_id: queued.id, nominal_at: new Date('2026-01-01T00:00:00Z') });
  done = [];
  for (const n of [1, 2, 3]) {
    const child = await childOf(parent, grant, `child-done-${n}`, null);
    const run = (await insertRun(db, { job_id: child.id, nominal_at: new Date('2026-01-01T00:00:00Z') }))!;
    await db.execute(`update runs set state = 'succeeded', finished_at = now() where id = '${run.id}'`);
    done.push(child);
  }
});

describe('finished one-shot child jobs are counted apart from the live ones a grant authorises', () => {
  it('grants show lists the live children and counts the finished ones', async () => {
    const r = await runCli(['grants', 'show', parent.id], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`also authorises 2 child job(s) its runs made (revoking the grant stops them): ${pending.id} (workflow child-pending), ${queued.id} (workflow child-queued); and 3 finished (no instant left, no run under way)\n`);
    for (const c of done) expect(r.stdout).not.toContain(c.id);
    const json = JSON.parse((await runCli(['grants', 'show', parent.id, '--json'], { env })).stdout) as { child_jobs: { id: string }[]; finished_child_jobs: number };
    expect(json.child_jobs.map((c) => c.id)).toEqual([pending.id, queued.id]);
    expect(json.finished_child_jobs).toBe(3);
  });

  it('grants list counts them in the CHILD JOBS cell and in --json', async () => {
    const line = (await runCli(['grants', 'list'], { env })).stdout.split('\n').find((l) => l.startsWith(grant.id))!;
    expect(line).toMatch(/ yes +2 \(3 finished\) +dave /);
    const [row] = JSON.parse((await runCli(['grants', 'list', '--job', parent.id, '--json'], { env })).stdout) as { child_jobs: { id: string }[]; finished_child_jobs: number }[];
    expect(row!.child_jobs.map((c) => c.id)).toEqual([pending.id, queued.id]);
    expect(row!.finished_child_jobs).toBe(3);
  });

  it('judges each child as its run would (stale, orphaned and too deep ones left out), in a few statements for all of them', async () => {
    const db = database().db;
    const other = await createJob(db, base('other'));
    const otherGrant = await issueGrant(db, { job_id: other.id, approval_id: 'apr_other', approver: 'erin', channel: 'cli', tool_scope: null });
    const stale = await childOf(other, { id: 'grt_replaced' }, 'stale', new Date('2098-06-01T00:00:00Z'));
    const middle = await childOf(other, otherGrant, 'middle', new Date('2098-06-01T00:00:00Z'), 'task');
    const below = await childOf(middle, otherGrant, 'below', new Date('2098-06-01T00:00:00Z'), 'spawn_task');
    let chain = below;
    for (const n of [1, 2, 3]) chain = await childOf(chain, otherGrant, `deep-${n}`, new Date('2098-06-01T00:00:00Z'), 'spawn_task');
    const orphanParent = await childOf(other, otherGrant, 'orphan-parent', new Date('2098-06-01T00:00:00Z'), 'task');
    const orphan = await childOf(orphanParent, otherGrant, 'orphan', new Date('2098-06-01T00:00:00Z'), 'spawn_task');
    await removeJob(db, orphanParent.id, { actor: 'alice', why: 'cancelled' }, instantsDroppedByRemoval);
    // every statement the pool runs while the children are judged: a few per generation, not a few per child
    const { pool } = database();
    const query = pool.query;
    let statements = 0;
    pool.query = function counted(this: typeof pool, ...args: unknown[]) {
      statements++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pool.query;
    const covered = await childJobsCovered(db, [grant, otherGrant]).finally(() => { pool.query = query; });
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThanOrEqual(2 + MAX_ANCESTRY);
    const all = [pending, queued, ...done, stale, middle, below, orphan, chain];
    for (const job of all) {
      const auth = await runAuthorization(db, job);
      const listed = [...covered.values()].some((c) => [...c.live, ...c.finished].some((j) => j.id === job.id));
      expect(listed, `${job.name}: ${auth.rule}`).toBe(auth.cron_authorized);
    }
    expect(covered.get(otherGrant.id)!.live.map((j) => j.name)).toEqual(['middle', 'below', 'deep-1', 'deep-2']);
    expect((await liveGrant(db, other.id))!.id).toBe(otherGrant.id);
  });
});

describe('grants revoke of a child job', () => {
  it('says it has no grant of its own and names the grant it runs under and how to stop it; the grant stays', async () => {
    const r = await runCli(['grants', 'revoke', pending.id, '--why', 'runaway'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`job ${pending.id} has no grant of its own: it is a workflow child of job ${parent.id} and runs under grant ${grant.id} of job ${parent.id}; to stop it and every job under that grant, revoke that one: grants revoke ${parent.id} --why "..."; to stop only this job: jobs remove ${pending.id}`);
    expect(r.stderr).not.toContain('has no live grant');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect((await liveGrant(database().db, parent.id))!.id).toBe(grant.id);
  });
});

describe('grants show names the model an agent job\'s runs use, and what of it the grant does not cover', () => {
  it('from config: name and endpoint, said to be outside the grant, in text and JSON', async () => {
    const job = await createJob(database().db, base('digest', { payload: { kind: 'agent', prompt: 'summarise' } }));
    const text = (await runCli(['grants', 'show', job.id], { env })).stdout;
    expect(text).toContain('model: small @ http://127.0.0.1:9/v1 (from config, not part of the grant: it may change without a new approval)\n');
    const json = JSON.parse((await runCli(['grants', 'show', job.id, '--json'], { env })).stdout) as { model: unknown };
    expect(json.model).toEqual({ name: 'small', name_from: 'config', endpoint: 'http://127.0.0.1:9/v1', endpoint_from: 'config', name_in_grant: false, endpoint_in_grant: false });
    const withKey = await runCli(['grants', 'show', job.id, '--json'], { env: credentialed });
    expect(withKey.code, withKey.stderr).toBe(0);
    expect(withKey.stdout).not.toContain('hunter2secret');
    expect((JSON.parse(withKey.stdout) as { model: { endpoint: string } }).model.endpoint).toBe('http://127.0.0.1:9/v1?api_key=[REDACTED]');
  });

  it('from the payload: the name is part of the grant, the endpoint is not; a steps job has no model line', async () => {
    const job = await createJob(database().db, base('digest-big', { payload: { kind: 'agent', prompt: 'summarise', model: 'big' } }));
    const text = (await runCli(['grants', 'show', job.id], { env })).stdout;
    expect(text).toContain("model: big (named by the job's payload, part of the grant) @ http://127.0.0.1:9/v1 (endpoint from config, not part of the grant: it may change without a new approval)\n");
    expect((JSON.parse((await runCli(['grants', 'show', job.id, '--json'], { env })).stdout) as { model: unknown }).model).toMatchObject({ name: 'big', name_from: 'payload', name_in_grant: true });
    expect((await runCli(['grants', 'show', parent.id], { env })).stdout).not.toContain('model:');
  });
});

describe('the job-display lines jobs show can share with grants show', () => {
  it('modelLine, grantLine with the ended grant, and deliveryLine say what grants show says', () => {
    const agent = { kind: 'agent' as const, prompt: 'x' };
    expect(modelLine(jobModel(agent, { name: '', base_url: undefined })!)).toBe('model: (model.name not set) @ (model.base_url not set) (from config, not part of the grant: it may change without a new approval)');
    expect(jobModel(steps, { name: 'small' })).toBeNull();
    const ended = { id: 'grt_1', approver: 'bob', approved_at: new Date('2026-01-01T00:00:00Z'), ended_at: new Date('2026-01-02T00:00:00Z'), ended_by: 'carol', ended_from: { os_account: 'root', host: 'vm' }, why: 'incident 42' };
    expect(grantLine(parent, null, ended)).toBe('grant: none; the last one, grt_1 (approved by bob at 2026-01-01T00:00:00.000Z), ended at 2026-01-02T00:00:00.000Z by carol (OS account root on vm): incident 42');
    expect(grantLine(parent, null)).toBe(`grant: none (see: grants show ${parent.id})`);
    expect(deliveryLine('ops', false)).toBe('delivery: notify target ops, but nothing is posted while the job has no live grant');
    expect(deliveryLine('ops', true)).toBe("delivery: each finished run's outcome is posted to notify target ops");
    expect(deliveryLine(null, true)).toBe('delivery: none');
  });
});
