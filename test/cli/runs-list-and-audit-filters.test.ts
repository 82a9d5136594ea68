import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudits } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun, recordSkip } from '../../src/store/runs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// "What failed or was refused tonight?" across every job, without knowing which job to ask about.
const database = useTestDatabase();
let env: NodeJS.ProcessEnv;
const ids: Record<string, string> = {};

beforeAll(async () => {
  const { db, pool, schema } = database();
  const reports = await createJob(db, aJob({ name: 'reports' }));
  const backups = await createJob(db, aJob({ name: 'backups' }));
  const day = (h: number) => new Date(Date.now() - h * 3_600_000);
  for (const [key, job, hoursAgo, state] of [['old', reports, 72, 'failed'], ['ok', reports, 5, 'succeeded'], ['failed', reports, 4, 'failed'], ['denied', backups, 3, 'denied']] as const) {
    const run = (await insertRun(db, { job_id: job.id, nominal_at: day(hoursAgo) }))!;
    await pool.query(`update runs set state = $2, error = $3, finished_at = now() where id = $1`, [run.id, state, state === 'succeeded' ? null : `${key} went wrong`]);
    ids[key] = run.id;
  }
  await appendAudits(db, [
    { kind: 'gate.decision', actor: 'daemon', job_id: backups.id, run_id: ids.denied, step: 4, rule: 'unattended.policy_deny', outcome: 'deny', risk: 'write', reason: 'refused', data: { tool: 'write_file' } },
    { kind: 'gate.decision', actor: 'daemon', job_id: reports.id, run_id: ids.ok, step: 4, rule: 'unattended.read_only', outcome: 'allow', risk: 'read_only', reason: 'ok', data: { tool: 'read_file' } },
  ]);
  const file = join(mkdtempSync(join(tmpdir(), 'echo-runs-list-')), 'echo-agent.yaml');
  writeFileSync(file, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: file };
});

describe('runs list', () => {
  it('lists the runs of every job that ended badly since a time, with the job named, newest first', async () => {
    const r = await runCli(['runs', 'list', '--state', 'failed,denied', '--since', '24h'], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').slice(1);
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual([ids.denied, ids.failed]);
    expect(lines[0]).toMatch(/backups .* denied .* denied went wrong/);
    const json = JSON.parse((await runCli(['runs', 'list', '--job', 'reports', '--json'], { env })).stdout) as { id: string; job_name: string }[];
    expect(json.map((x) => x.id)).toEqual([ids.failed, ids.ok, ids.old]);
    expect(json[0]!.job_name).toBe('reports');
  });

  it('counts a paused job\'s skipped instants instead of listing them among the runs that ran; --state skipped lists them', async () => {
    const db = database().db;
    const paused = await createJob(db, aJob({ name: 'paused-often' }));
    for (let i = 0; i < 30; i++) await recordSkip(db, { job_id: paused.id, nominal_at: new Date(Date.now() - (i + 1) * 60_000), reason: 'misfire.paused: the job was paused' });
    await recordSkip(db, { job_id: paused.id, nominal_at: new Date(Date.now() - 3_600_000), reason: 'overlap.skip.busy: the previous run was still running' });
    const r = await runCli(['runs', 'list', '--since', '24h'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n\n')[0]).not.toContain('skipped');
    expect(r.stdout).toContain(ids.failed);
    expect(r.stdout).toContain('31 skipped instant(s) not listed (misfire.paused 30, overlap.skip.busy 1): --state skipped lists them');
    const listed = await runCli(['runs', 'list', '--job', 'paused-often', '--state', 'skipped', '--json'], { env });
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(31);
  });

  it('jobs runs --json names the job in each row, as runs list --json does', async () => {
    const r = await runCli(['jobs', 'runs', 'reports', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { id: string; job_name: string }[];
    expect(rows.map((x) => x.id)).toEqual([ids.failed, ids.ok, ids.old]);
    expect(rows.map((x) => x.job_name)).toEqual(['reports', 'reports', 'reports']);
  });

  it('refuses an unknown state with the nearest one and the list, exit 64', async () => {
    const r = await runCli(['runs', 'list', '--state', 'faild'], { env });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('--state: unknown run state "faild" (did you mean "failed"?); states: queued, running');
  });
});

describe('audit list --outcome and --rule', () => {
  it('lists every refusal, or every record of one rule', async () => {
    const denies = JSON.parse((await runCli(['audit', 'list', '--outcome', 'deny', '--json'], { env })).stdout) as { run_id: string }[];
    expect(denies.map((d) => d.run_id)).toEqual([ids.denied]);
    const byRule = JSON.parse((await runCli(['audit', 'list', '--rule', 'unattended.read_only', '--json'], { env })).stdout) as { run_id: string }[];
    expect(byRule.map((d) => d.run_id)).toEqual([ids.ok]);
  });

  it('a value no record holds is named, with the nearest one the log holds, exit 64', async () => {
    const r = await runCli(['audit', 'list', '--rule', 'unattended.policy_dny'], { env });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('--rule: no rule id "unattended.policy_dny" is known to this build, and no audit record has it (did you mean "unattended.policy_deny"?)');
  });
});
