import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantsDroppedByRemoval } from '../../src/jobs/next-fire.ts';
import { issueGrant, revokeGrant } from '../../src/store/grants.ts';
import { createJob, removeJob, type NewJob } from '../../src/store/jobs.ts';
import type { GrantRow, JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

// Child jobs (task, workflow, spawn_task) have no grant of their own and run under the one their parent's run
// held: "which jobs hold cron authority" is not answered by the grant rows alone.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-grant-children-'));
let env: NodeJS.ProcessEnv;
const steps = { kind: 'steps' as const, steps: [{ tool: 'read_file', args: { path: 'x' } }] };
// a one-shot child with its instant still ahead, as the scheduler stores it: a child with none left has finished
const later = () => new Date(Date.now() + 3_600_000);
const base = (name: string): NewJob => ({ name, owner: 'alice', created_by: 'alice', schedule: '0 4 * * *', timezone: 'UTC', tools: [], paused: false, payload: steps });
const childOf = (parent: JobRow, grant: GrantRow | { id: string }, name: string, origin: 'task' | 'spawn_task' | 'workflow' = 'task', at = later()) => createJob(database().db, {
  ...base(name), schedule: `at ${at.toISOString()}`, next_fire_at: at, origin, parent_job_id: parent.id, parent_execution_id: `exec-${parent.id}`, parent_grant_id: grant.id,
});

let top: JobRow;
let grant: GrantRow;
let child: JobRow;
let grandchild: JobRow;
let other: JobRow;
let otherGrant: GrantRow;

beforeAll(async () => {
  const file = join(dir, 'config.yaml');
  writeFileSync(file, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
  env = { ECHO_AGENT_CONFIG: file };
  const db = database().db;
  top = await createJob(db, base('nightly-top'));
  grant = await issueGrant(db, { job_id: top.id, approval_id: 'apr_top', approver: 'alice', channel: 'cli', tool_scope: null });
  child = await childOf(top, grant, 'report-task');
  grandchild = await childOf(child, grant, 'report-subtask', 'spawn_task');
  // made under a grant that is no longer the top job's: it runs under nothing
  await childOf(top, { id: 'grt_replaced' }, 'stale-task');
  // removed: cancelled through task, nothing of it runs
  const gone = await childOf(top, grant, 'cancelled-task');
  await removeJob(db, gone.id, { actor: 'alice', why: 'cancelled' }, instantsDroppedByRemoval);
  other = await createJob(db, base('other-top'));
  otherGrant = await issueGrant(db, { job_id: other.id, approval_id: 'apr_other', approver: 'bob', channel: 'cli', tool_scope: null });
});

describe('grants list and grants show name the child jobs a grant authorises', () => {
  it('grants list counts, per grant, the live child jobs its runs made, grandchildren included, and no stale or removed one', async () => {
    const out = await runCli(['grants', 'list', '--json'], { env });
    expect(out.code).toBe(0);
    const rows = JSON.parse(out.stdout) as { id: string; child_jobs: { id: string; origin: string }[] }[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(grant.id)!.child_jobs.map((c) => c.id).sort()).toEqual([child.id, grandchild.id].sort());
    expect(byId.get(otherGrant.id)!.child_jobs).toEqual([]);
    const table = await runCli(['grants', 'list'], { env });
    const line = table.stdout.split('\n').find((l) => l.startsWith(grant.id))!;
    expect(table.stdout.split('\n')[0]).toContain('CHILD JOBS');
    expect(line).toMatch(/ yes +2 +alice /);
  });

  it('grants show of the parent names each child job it authorises; after a revoke it names none', async () => {
    const shown = await runCli(['grants', 'show', top.id], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`also authorises 2 child job(s) its runs made (revoking the grant stops them): ${child.id} (task report-task), ${grandchild.id} (spawn_task report-subtask)`);
    const json = JSON.parse((await runCli(['grants', 'show', top.id, '--json'], { env })).stdout) as { child_jobs: { id: string }[] };
    expect(json.child_jobs.map((c) => c.id)).toEqual([child.id, grandchild.id]);

    await revokeGrant(database().db, { job_id: other.id, by: 'ops', why: 'test' });
    await revokeGrant(database().db, { job_id: top.id, by: 'ops', why: 'no longer wanted' });
    const after = await runCli(['grants', 'show', top.id, '--json'], { env });
    expect((JSON.parse(after.stdout) as { child_jobs: unknown[] }).child_jobs).toEqual([]);
    const all = JSON.parse((await runCli(['grants', 'list', '--all', '--json'], { env })).stdout) as { id: string; child_jobs: unknown[] }[];
    expect(all.find((g) => g.id === grant.id)!.child_jobs).toEqual([]);
  });
});
