import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudit, listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun, listRuns } from '../../src/store/runs.ts';
import { saveTranscript } from '../../src/store/transcripts.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-runs-commands-'));
let job: JobRow;
let env: NodeJS.ProcessEnv;

const writeConfig = (name: string, extra: string) => {
  const file = join(dir, name);
  writeFileSync(file, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n${extra}`);
  return file;
};

beforeAll(async () => {
  const { db } = database();
  job = await createJob(db, aJob({ name: 'pruned' }));
  for (const ago of [40, 35, 1]) {
    const run = (await insertRun(db, { job_id: job.id, nominal_at: new Date(Date.now() - ago * 86_400_000) }))!;
    await db.execute(sql`update runs set state = 'succeeded' where id = ${run.id}`);
  }
  env = { ECHO_AGENT_CONFIG: writeConfig('default.yaml', '') };
});

const noStack = (stderr: string) => expect(stderr).not.toMatch(/internal error|\n\s+at .*\.(ts|js):\d+/);

describe('runs prune', () => {
  it('--dry-run counts the runs past the cutoff as JSON and deletes nothing', async () => {
    const r = await runCli(['runs', 'prune', '--older-than-days', '30', '--dry-run', '--json'], { env });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ dry_run: true, runs: 2, jobs: [{ job_id: job.id, runs: 2 }] });
    expect(Object.keys(report as object).filter((k) => /[A-Z]/.test(k)), 'snake_case keys only').toEqual([]);
    expect(await listRuns(database().db, { job_id: job.id })).toHaveLength(3);
  });

  it('deletes them, records who did it, and prints what went', async () => {
    const r = await runCli(['runs', 'prune', '--older-than-days', '30', '--as', 'carol'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^deleted 2 ended run\(s\) of 1 job\(s\) with instants before /);
    expect(r.stdout).toContain(job.id);
    expect(await listRuns(database().db, { job_id: job.id })).toHaveLength(1);
    const [record] = await listAudit(database().db, { job_id: job.id, kind: 'runs.pruned' });
    expect(record).toMatchObject({ actor: 'carol', data: { runs: 2 } });
  });

  it.each([['7d'], ['0'], ['1e3'], ['36501'], ['']])('refuses --older-than-days %j with the range, exit 64', async (value) => {
    const r = await runCli(['runs', 'prune', '--older-than-days', value], { env });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain(`--older-than-days: expected a whole number of days from 1 to 36500, got "${value}"`);
    noStack(r.stderr);
  });

  it('with retention off in the config, asks for a cutoff instead of pruning nothing silently', async () => {
    const off = { ECHO_AGENT_CONFIG: writeConfig('off.yaml', 'daemon:\n  run_retention_days: 0\n') };
    const r = await runCli(['runs', 'prune'], { env: off });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('run retention is off (daemon.run_retention_days is 0); give --older-than-days N');
    noStack(r.stderr);
  });
});

describe('runs show', () => {
  it('shows a run with its output and every audit record that names it, oldest first', async () => {
    const { db } = database();
    const run = (await insertRun(db, { job_id: job.id, nominal_at: new Date('2026-11-30T03:00:00Z') }))!;
    await db.execute(sql`update runs set state = 'denied', denials = 1, output = ${JSON.stringify({ steps: ['x'.repeat(3000)] })}::jsonb where id = ${run.id}`);
    await appendAudit(db, { kind: 'gate.decision', actor: 'daemon', job_id: job.id, run_id: run.id, step: 4, outcome: 'deny', rule: 'security_profile.daemon', reason: 'the daemon profile removes exec' });
    await appendAudit(db, { kind: 'run.state', actor: 'daemon', job_id: job.id, run_id: run.id, outcome: 'denied' });
    const r = await runCli(['runs', 'show', run.id], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`job: ${job.id} (pruned)`);
    expect(r.stdout).toMatch(/^state: denied$/m);
    expect(r.stdout).toMatch(/characters; --json for all\)/);
    expect(r.stdout.indexOf('security_profile.daemon')).toBeLessThan(r.stdout.indexOf('run.state'));
    const json = JSON.parse((await runCli(['runs', 'show', run.id, '--json'], { env })).stdout);
    expect(json.run).toMatchObject({ id: run.id, state: 'denied', denials: 1 });
    expect(json.audit.map((a: { kind: string }) => a.kind)).toEqual(['gate.decision', 'run.state']);
  });

  it('a pruned run is still answered for from the audit log, with a note that its row is gone', async () => {
    await appendAudit(database().db, { kind: 'run.state', actor: 'daemon', job_id: job.id, run_id: 'run_longgone', outcome: 'succeeded' });
    const r = await runCli(['runs', 'show', 'run_longgone'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('run run_longgone is no longer in the runs table (deleted under daemon.run_retention_days)');
    expect(r.stdout).toContain(`job: ${job.id} (pruned)`);
    expect(r.stdout).toContain('succeeded');
  });

  it('--transcript shows an agent run\'s conversation, one line a message, with the tools asked for and what they answered', async () => {
    const { db } = database();
    const run = (await insertRun(db, { job_id: job.id, nominal_at: new Date('2026-11-30T04:00:00Z') }))!;
    await saveTranscript(db, {
      kind: 'run', session_key: `cron:${job.id}`, memory_scope: '', run_id: run.id, job_id: job.id, execution_id: 'exe_t', prompt: 'check the notes',
      secrets: ['hunter2-secret'],
      messages: [
        { role: 'user', content: 'check the notes' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"missing.txt"}' } }] },
        { role: 'tool', name: 'read_file', tool_call_id: 'c1', content: '{"error":"missing.txt does not exist"}' },
        { role: 'assistant', content: 'The notes are gone; the key hunter2-secret\nstays here.' },
      ],
    });
    const r = await runCli(['runs', 'show', run.id, '--transcript'], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.slice(r.stdout.indexOf('transcript trn_')).split('\n');
    expect(lines[1]).toBe('[user] check the notes');
    expect(lines[2]).toBe('[assistant] calls: read_file({"path":"missing.txt"})');
    expect(lines[3]).toBe('[tool read_file] {"error":"missing.txt does not exist"}');
    expect(lines[4]).toBe('[assistant] The notes are gone; the key [REDACTED] ⏎ stays here.');
    const json = JSON.parse((await runCli(['runs', 'show', run.id, '--transcript', '--json'], { env })).stdout);
    expect(json.transcript.messages).toHaveLength(4);
    // without the option, no transcript is read
    expect((await runCli(['runs', 'show', run.id], { env })).stdout).not.toContain('transcript');
  });

  it('--transcript on a run with none says so', async () => {
    const run = (await insertRun(database().db, { job_id: job.id, nominal_at: new Date('2026-11-30T05:00:00Z') }))!;
    const r = await runCli(['runs', 'show', run.id, '--transcript'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('transcript: none (a steps run');
  });

  it('an id nobody knows is an error naming it, exit 1', async () => {
    const r = await runCli(['runs', 'show', 'run_nosuch'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no run with id run_nosuch, and no audit record names it');
    noStack(r.stderr);
  });
});
