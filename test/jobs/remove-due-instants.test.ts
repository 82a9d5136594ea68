import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EDIT_SKIP_LIMIT, instantsDroppedByRemoval } from '../../src/jobs/next-fire.ts';
import { listAudit } from '../../src/store/audit.ts';
import { databaseNow } from '../../src/store/db.ts';
import { createJob, getJob, removeJob, type NewJob } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const HOUR = 3_600_000;

const job = (over: Partial<NewJob>) => createJob(database().db, {
  name: 'removed-due', owner: 'test', created_by: 'test', schedule: '0 * * * *', timezone: 'UTC', tools: [], paused: true,
  payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: {} }] }, ...over,
});
/** The hour boundary `hoursAgo` whole hours before the database's current hour. */
const hourAgo = async (hoursAgo: number) => new Date(Math.floor((await databaseNow(database().db)).getTime() / HOUR) * HOUR - hoursAgo * HOUR);

describe('removing a job accounts for the instants that were due and not yet fired (I13)', () => {
  it.each([
    [true, 'misfire.paused'],
    [false, 'misfire.job_removed'],
  ])('a job (paused: %s) removed five hours after its next instant records each of those instants as skipped under %s, and the removal says how many', async (paused, rule) => {
    const from = await hourAgo(5);
    const j = await job({ next_fire_at: from, paused });
    expect(await removeJob(database().db, j.id, { actor: 'ops', why: 'obsolete' }, instantsDroppedByRemoval)).not.toBeNull();
    const runs = await listRuns(database().db, { job_id: j.id });
    expect(runs.map((r) => r.nominal_at.getTime()).sort()).toEqual([0, 1, 2, 3, 4, 5].map((h) => from.getTime() + h * HOUR));
    for (const r of runs) expect(r).toMatchObject({ state: 'skipped', skip_reason: expect.stringMatching(new RegExp(`^${rule.replace('.', '\\.')}: `)) });
    const [removed] = await listAudit(database().db, { job_id: j.id, kind: 'job.removed' });
    expect(removed?.data).toMatchObject({ due_instants_skipped: 6 });
    expect(removed?.data).not.toHaveProperty('due_instants_not_recorded');
  });

  it('a job not yet due leaves no skipped runs behind', async () => {
    const j = await job({ next_fire_at: await hourAgo(-2), paused: false });
    await removeJob(database().db, j.id, { actor: 'ops' }, instantsDroppedByRemoval);
    expect(await listRuns(database().db, { job_id: j.id })).toEqual([]);
  });

  it('a backlog longer than the limit does not stop the removal: the rest is named by its range in the job.removed record', async () => {
    const now = await databaseNow(database().db);
    const j = await job({ schedule: '* * * * * *', next_fire_at: new Date(Math.floor(now.getTime() / 1000) * 1000 - (EDIT_SKIP_LIMIT + 60) * 1000) });
    expect(await removeJob(database().db, j.id, { actor: 'ops' }, instantsDroppedByRemoval)).not.toBeNull();
    expect((await getJob(database().db, j.id, { includeRemoved: true }))?.removed_at).not.toBeNull();
    expect(await listRuns(database().db, { job_id: j.id, limit: EDIT_SKIP_LIMIT + 10 })).toHaveLength(EDIT_SKIP_LIMIT);
    const [removed] = await listAudit(database().db, { job_id: j.id, kind: 'job.removed' });
    expect(removed?.data).toMatchObject({ due_instants_skipped: EDIT_SKIP_LIMIT, due_instants_not_recorded: { after: expect.any(String), until: expect.any(String) } });
  });

  it('jobs remove on the command line records them too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-remove-due-'));
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
    const j = await job({ name: 'removed-from-cli', next_fire_at: await hourAgo(2), paused: false });
    const out = await runCli(['jobs', 'remove', j.id, '--why', 'obsolete'], { env: { ECHO_AGENT_CONFIG: config } });
    expect(out.code, out.stderr).toBe(0);
    const runs = await listRuns(database().db, { job_id: j.id });
    expect(runs).toHaveLength(3);
    for (const r of runs) expect(r.skip_reason).toMatch(/^misfire\.job_removed: /);
  });
});
