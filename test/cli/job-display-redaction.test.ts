import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApproval } from '../../src/store/approvals.ts';
import { createJob } from '../../src/store/jobs.ts';
import { addDenial, insertRun } from '../../src/store/runs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const KEY = 'sk-live-ABCDEFGHIJKLMNOPQRSTUV';
const PROMPT = `Summarise the logs. The api key is ${KEY}`;
let env: NodeJS.ProcessEnv;
let secretJob: JobRow;
let plainJob: JobRow;
let pausedJob: JobRow;

beforeAll(async () => {
  const { db, schema } = database();
  const job = (name: string, prompt: string) => createJob(db, {
    name, owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'agent', prompt },
  });
  secretJob = await job('keyed', PROMPT);
  plainJob = await job('plain', 'Summarise the logs: count errors, then warnings; basic understanding is enough.');
  pausedJob = await job('noted', 'Summarise the logs');
  await db.execute(sql`update jobs set paused = true, pause_note = ${`rotated: token=${KEY}`} where id = ${pausedJob.id}`);
  const cfg = join(mkdtempSync(join(tmpdir(), 'echo-job-display-')), 'echo-agent.yaml');
  writeFileSync(cfg, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: cfg };
});

const ok = (r: { code: number | null; stderr: string }) => expect(r.code, r.stderr).toBe(0);

describe('job displays redact a credential in the definition, as approvals show does (I11)', () => {
  it('approvals show of the call that made the job prints [REDACTED] for the key (the reference)', async () => {
    const row = await createApproval(database().db, {
      call_hash: 'hash-keyed', tool: 'cronjob', args: { action: 'create', name: 'keyed', schedule: '0 3 * * *', payload: { kind: 'agent', prompt: PROMPT } },
      risk: 'dangerous', channel: 'cli', user_id: 'u1', expires_at: new Date(Date.now() + 60_000),
    });
    const r = await runCli(['approvals', 'show', row.id], { env });
    ok(r);
    expect(r.stdout).not.toContain(KEY);
    expect(r.stdout).toContain('[REDACTED]');
  });

  it('jobs show prints the prompt with the key redacted, in text and in --json', async () => {
    const text = await runCli(['jobs', 'show', secretJob.id], { env });
    ok(text);
    expect(text.stdout).not.toContain(KEY);
    expect(text.stdout).toContain('Summarise the logs. The api key is [REDACTED]');
    const json = await runCli(['jobs', 'show', secretJob.id, '--json'], { env });
    ok(json);
    expect(json.stdout).not.toContain(KEY);
    const shown = JSON.parse(json.stdout) as { job: JobRow; authorization: { rule: string } };
    expect(shown.job.payload).toEqual({ kind: 'agent', prompt: 'Summarise the logs. The api key is [REDACTED]' });
    // the authorisation is worked out from the stored job, and its key is no credential
    expect(shown.authorization.rule).toEqual(expect.any(String));
  });

  it('jobs list --json and a pause --json redact the prompt and the pause note', async () => {
    const list = await runCli(['jobs', 'list', '--json'], { env });
    ok(list);
    expect(list.stdout).not.toContain(KEY);
    expect(list.stdout).toContain('The api key is [REDACTED]');
    const table = await runCli(['jobs', 'list'], { env });
    ok(table);
    expect(table.stdout).not.toContain(KEY);
    expect(table.stdout).toContain('paused: rotated: token=[REDACTED]');
    const pause = await runCli(['jobs', 'pause', secretJob.id, '--json'], { env });
    ok(pause);
    expect(pause.stdout).not.toContain(KEY);
    expect(JSON.parse(pause.stdout)).toMatchObject({ id: secretJob.id, paused: true, payload: { prompt: 'Summarise the logs. The api key is [REDACTED]' } });
  });

  it('an ordinary prompt is shown whole: nothing in it looks like a credential', async () => {
    const r = await runCli(['jobs', 'show', plainJob.id, '--json'], { env });
    ok(r);
    expect((JSON.parse(r.stdout) as { job: JobRow }).job.payload).toEqual(plainJob.payload);
    expect(r.stdout).not.toContain('[REDACTED]');
  });

  it('grants show and grants list print the pause note and the revocation reason redacted', async () => {
    const show = await runCli(['grants', 'show', pausedJob.id], { env });
    ok(show);
    expect(show.stdout).not.toContain(KEY);
    expect(show.stdout).toContain('PAUSED (rotated: token=[REDACTED])');
    const json = await runCli(['grants', 'show', pausedJob.id, '--json'], { env });
    ok(json);
    expect(json.stdout).not.toContain(KEY);
    // the stored definition is what its hash is checked against: shown redacted, it still matches
    const { db } = database();
    await db.execute(sql`insert into job_grants (id, job_id, cron_authorized, approver, channel, approved_at, definition_hash)
      select 'grt_keyed', id, true, 'alice', 'cli', now(), definition_hash from jobs where id = ${secretJob.id}`);
    const granted = await runCli(['grants', 'show', secretJob.id], { env });
    ok(granted);
    expect(granted.stdout).toContain('definition still matches');
    const revoke = await runCli(['grants', 'revoke', secretJob.id, '--why', `leaked password=${KEY}`], { env });
    ok(revoke);
    const list = await runCli(['grants', 'list', '--all', '--json'], { env });
    ok(list);
    expect(list.stdout).not.toContain(KEY);
    expect(list.stdout).toContain('leaked password=[REDACTED]');
    const ended = await runCli(['grants', 'show', secretJob.id], { env });
    expect(ended.stdout).not.toContain(KEY);
  });
});

describe('jobs runs', () => {
  it('shows how many calls each run had refused, beside its state (a DENIALS column), and in --json', async () => {
    const { db } = database();
    const run = (await insertRun(db, { job_id: plainJob.id, nominal_at: new Date('2026-01-02T03:00:00Z') }))!;
    await db.execute(sql`update runs set state = 'succeeded' where id = ${run.id}`);
    for (let i = 0; i < 4; i++) await addDenial(db, run.id);
    const r = await runCli(['jobs', 'runs', plainJob.id], { env });
    ok(r);
    const [header, line] = r.stdout.split('\n');
    expect(header).toMatch(/^RUN\s+NOMINAL\s+TRIGGER\s+STATE\s+DENIALS\s+ATTEMPT/);
    expect(line).toMatch(new RegExp(`^${run.id}\\s+2026-01-02T03:00:00.000Z\\s+cron\\s+succeeded\\s+4\\s+0\\s`));
    const json = await runCli(['jobs', 'runs', plainJob.id, '--json'], { env });
    ok(json);
    expect(JSON.parse(json.stdout)).toMatchObject([{ id: run.id, state: 'succeeded', denials: 4 }]);
  });
});
