import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantsDroppedByRemoval } from '../../src/jobs/next-fire.ts';
import { createJob, removeJob } from '../../src/store/jobs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('admin commands name a job by id or by name', () => {
  let env: NodeJS.ProcessEnv;
  let nightly: JobRow;
  let twinA: JobRow;
  let twinB: JobRow;
  let gone: JobRow;
  let replaced: JobRow;
  beforeAll(async () => {
    const { db, schema } = database();
    const job = (name: string) => createJob(db, {
      name, owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
    });
    nightly = await job('nightly');
    twinA = await job('twin');
    twinB = await job('twin');
    gone = await job('gone');
    await removeJob(db, gone.id, { actor: 'test' }, instantsDroppedByRemoval);
    // a removed job and the live job that replaced it under the same name
    await removeJob(db, (await job('weekly')).id, { actor: 'test' }, instantsDroppedByRemoval);
    replaced = await job('weekly');
    const cfg = join(mkdtempSync(join(tmpdir(), 'echo-jobref-')), 'echo-agent.yaml');
    writeFileSync(cfg, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
    env = { ECHO_AGENT_CONFIG: cfg };
  });

  it('takes a unique name where an id is expected', async () => {
    const show = await runCli(['grants', 'show', 'nightly', '--json'], { env });
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout).job.id).toBe(nightly.id);
    const pause = await runCli(['jobs', 'pause', 'nightly', '--note', 'maintenance', '--json'], { env });
    expect(pause.code, pause.stderr).toBe(0);
    expect(JSON.parse(pause.stdout)).toMatchObject({ id: nightly.id, paused: true });
  });

  it('grants show of a steps job answers for its steps, the only calls its runs make', async () => {
    const show = await runCli(['grants', 'show', nightly.id, '--json'], { env });
    expect(show.code, show.stderr).toBe(0);
    const report = JSON.parse(show.stdout) as { tools: { name: string; tonight: string }[]; removed: unknown[] };
    expect(report.tools).toEqual([expect.objectContaining({ name: 'list_dir', tonight: 'allowed' })]);
    expect(report.removed).toEqual([]);
  });

  it('still takes the id', async () => {
    const r = await runCli(['jobs', 'show', twinA.id, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).job.id).toBe(twinA.id);
  });

  it('refuses an ambiguous name and lists the ids to choose from', async () => {
    const r = await runCli(['jobs', 'pause', 'twin'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('2 jobs are named "twin"');
    expect(r.stderr).toContain(twinA.id);
    expect(r.stderr).toContain(twinB.id);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('prefers the live job over a removed one of the same name', async () => {
    const r = await runCli(['grants', 'show', 'weekly', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).job.id).toBe(replaced.id);
  });

  it('finds a removed job by name where history is asked for, but not where it would be changed', async () => {
    const runs = await runCli(['jobs', 'runs', 'gone', '--json'], { env });
    expect(runs.code, runs.stderr).toBe(0);
    const run = await runCli(['jobs', 'run', 'gone'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`no job with id or name "gone" (job ${gone.id} of that name was removed)`);
  });

  it('says plainly when nothing matches, in audit filters too', async () => {
    const r = await runCli(['audit', 'list', '--job', 'nosuch'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no job with id or name "nosuch"');
    const byName = await runCli(['audit', 'list', '--job', 'nightly', '--json'], { env });
    expect(byName.code, byName.stderr).toBe(0);
    const rows = JSON.parse(byName.stdout) as { job_id: string; kind: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((x) => x.job_id))).toEqual(new Set([nightly.id]));
  });
});
