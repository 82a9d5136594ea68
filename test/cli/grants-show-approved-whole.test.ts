import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantsDroppedByRemoval } from '../../src/jobs/next-fire.ts';
import { issueGrant } from '../../src/store/grants.ts';
import { createJob, removeJob, updateJob } from '../../src/store/jobs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-grants-whole-'));
let env: NodeJS.ProcessEnv;
let withModel: NodeJS.ProcessEnv;
let nightly: JobRow;
let unapproved: JobRow;
let digest: JobRow;
let gone: JobRow;

const configFile = (name: string, extra: string[]) => {
  const file = join(dir, name);
  writeFileSync(file, [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    'notify:', '  targets:', '    ops: { url: "https://hooks.example.com/x" }', ...extra, '',
  ].join('\n'));
  return { ECHO_AGENT_CONFIG: file };
};

const stepsJob = (name: string, extra: Partial<Parameters<typeof createJob>[1]> = {}) => createJob(database().db, {
  name, owner: 'alice', created_by: 'alice', schedule: '30 2 * * *', timezone: 'Europe/Berlin', tools: ['list_dir', 'write_file'], paused: false,
  payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }, { tool: 'write_file', args: { path: 'r.txt', content: 'x' } }] },
  delivery: { notify: 'ops' }, next_fire_at: new Date('2026-12-07T01:30:00Z'), timeout_seconds: 300, max_retries: 1, retry_backoff_seconds: 60, ...extra,
});

beforeAll(async () => {
  env = configFile('plain.yaml', []);
  withModel = configFile('model.yaml', ['model:', '  base_url: http://127.0.0.1:9/v1', '  name: small']);
  nightly = await stepsJob('berlin-nightly');
  await issueGrant(database().db, { job_id: nightly.id, approval_id: 'apr_whole', approver: 'alice', channel: 'cli', tool_scope: ['list_dir', 'write_file'] });
  unapproved = await stepsJob('berlin-unapproved');
  digest = await createJob(database().db, {
    name: 'digest', owner: 'alice', created_by: 'alice', schedule: '0 7 * * 1-5', timezone: 'Europe/Berlin', tools: ['read_file', 'write_file'], paused: false,
    payload: { kind: 'agent', prompt: 'summarise' }, next_fire_at: new Date('2026-12-07T06:00:00Z'),
  });
  gone = await stepsJob('gone-nightly');
  await removeJob(database().db, gone.id, { actor: 'ops', why: 'obsolete' }, instantsDroppedByRemoval);
});

describe('grants show answers for the whole approved job', () => {
  it('names a change made after the grant that kept it, with who made it and when: the grant\'s approver did not', async () => {
    const job = await stepsJob('kept-grant');
    await issueGrant(database().db, { job_id: job.id, approval_id: 'apr_kept', approver: 'alice', channel: 'cli', tool_scope: ['list_dir', 'write_file'] });
    const before = JSON.parse((await runCli(['grants', 'show', job.id, '--json'], { env })).stdout) as { grant: { changed_since: unknown } };
    expect(before.grant.changed_since).toBeNull();
    await updateJob(database().db, job.id, { timeout_seconds: 900 }, { actor: 'bob' });
    const text = await runCli(['grants', 'show', job.id], { env });
    expect(text.stdout).toContain('grant ');
    expect(text.stdout).toMatch(/approved by alice on cli at .*\n {2}changed since, keeping the grant: timeout_seconds by bob at \d{4}-/);
    const json = JSON.parse((await runCli(['grants', 'show', job.id, '--json'], { env })).stdout) as { grant: { approver: string; changed_since: { by: string; fields: string[] } } };
    expect(json.grant).toMatchObject({ approver: 'alice', changed_since: { by: 'bob', fields: ['timeout_seconds'] } });
  }, 60_000);

  it('does not count the approved change behind the grant as a change made since: it is recorded after the answer', async () => {
    const job = await stepsJob('approved-change');
    const answered = new Date(Date.now() - 1000);
    // what an approved `jobs update` does: the change, its grant cleared, then a grant for the new definition
    await updateJob(database().db, job.id, { schedule: '45 2 * * *' }, { actor: 'bob' });
    await issueGrant(database().db, { job_id: job.id, approval_id: 'apr_change', approver: 'frank', channel: 'cli', approved_at: answered, tool_scope: ['list_dir', 'write_file'] });
    const json = JSON.parse((await runCli(['grants', 'show', job.id, '--json'], { env })).stdout) as { grant: { approver: string; changed_since: unknown } };
    expect(json.grant).toMatchObject({ approver: 'frank', changed_since: null });
  }, 60_000);

  it('grants list says a live grant no longer authorises a job whose definition changed under it, as its runs find', async () => {
    const job = await stepsJob('changed-under');
    await issueGrant(database().db, { job_id: job.id, approval_id: 'apr_under', approver: 'alice', channel: 'cli', tool_scope: ['list_dir', 'write_file'] });
    // a row changed outside the job service (a bad migration, a hand edit): the grant stays, its hash no longer matches
    await database().db.execute(`update jobs set payload = jsonb_set(payload, '{steps,0,args,path}', '"/etc"') where id = '${job.id}'`);
    const text = await runCli(['grants', 'list', '--job', job.id], { env });
    expect(text.stdout).toMatch(/changed-under\s+no \(definition changed\)\s+-\s+alice/);
    const [row] = JSON.parse((await runCli(['grants', 'list', '--job', job.id, '--json'], { env })).stdout) as { authorizes_now: boolean; authorization_rule: string }[];
    expect(row).toMatchObject({ authorizes_now: false, authorization_rule: 'grant.definition_changed' });
    const [still] = JSON.parse((await runCli(['grants', 'list', '--job', nightly.id, '--json'], { env })).stdout) as { authorizes_now: boolean }[];
    expect(still!.authorizes_now).toBe(true);
  }, 60_000);

  it('names the notify target its runs deliver to, in text and JSON, and the next fire in the job\'s own zone', async () => {
    const text = await runCli(['grants', 'show', nightly.id], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('next 2026-12-07T01:30:00.000Z (02:30 Europe/Berlin)');
    expect(text.stdout).toContain("delivery: each finished run's outcome is posted to notify target ops\n");
    const json = JSON.parse((await runCli(['grants', 'show', nightly.id, '--json'], { env })).stdout) as { delivery: unknown; warnings: unknown[] };
    expect(json.delivery).toEqual({ notify: 'ops', configured: true, delivers: true });
    expect(json.warnings).toEqual([]);
  });

  it('says a job without a live grant delivers nothing', async () => {
    const text = await runCli(['grants', 'show', unapproved.id], { env });
    expect(text.stdout).toContain('delivery: notify target ops, but nothing is posted while the job has no live grant\n');
    const json = JSON.parse((await runCli(['grants', 'show', unapproved.id, '--json'], { env })).stdout) as { delivery: unknown };
    expect(json.delivery).toEqual({ notify: 'ops', configured: true, delivers: false });
  });

  it('warns that an agent job\'s runs all fail when no model is configured, and not when one is', async () => {
    const text = await runCli(['grants', 'show', digest.id], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/WARNING: no model is configured \(model\.base_url, model\.name empty\): every run of this agent job fails with "agent turns need a model"/);
    const json = JSON.parse((await runCli(['grants', 'show', digest.id, '--json'], { env })).stdout) as { model_missing: string[]; warnings: string[] };
    expect(json.model_missing).toEqual(['model.base_url', 'model.name']);
    expect(json.warnings).toEqual([expect.stringContaining('agent turns need a model')]);
    expect(JSON.parse((await runCli(['grants', 'show', digest.id, '--json'], { env: withModel })).stdout)).toMatchObject({ model_missing: [], warnings: [] });
  }, 180_000);

  it('a job that will not fire has one heading, "if it ran", not a second "tonight" one', async () => {
    const out = (await runCli(['grants', 'show', gone.id], { env })).stdout;
    expect(out).toContain('it will not fire (removed); if it ran, per tool:');
    expect(out).not.toContain('tonight');
    expect(out).toMatch(/TOOL +RISK +IF IT RAN +RULE/);
    expect((await runCli(['grants', 'show', nightly.id], { env })).stdout).toMatch(/\ntonight, per tool:\n.*\nTOOL +RISK +TONIGHT +RULE/);
  });

  it('grants list names the job beside its id', async () => {
    const list = await runCli(['grants', 'list'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/GRANT +JOB +NAME +AUTHORISED/);
    expect(list.stdout).toMatch(new RegExp(`${nightly.id} +berlin-nightly +yes +- +alice`));
    const json = JSON.parse((await runCli(['grants', 'list', '--json'], { env })).stdout) as { job_id: string; job_name: string }[];
    expect(json).toContainEqual(expect.objectContaining({ job_id: nightly.id, job_name: 'berlin-nightly' }));
  });
});

describe('jobs show and jobs list', () => {
  it('jobs show says where runs deliver, how they fire and end, and who approved the grant', async () => {
    const r = await runCli(['jobs', 'show', nightly.id], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("delivery: each finished run's outcome is posted to notify target ops\n");
    expect(r.stdout).toContain('policies: overlap skip, misfire run_once, timeout 300s, retries 1 (backoff 60s), max_runs none\n');
    expect(r.stdout).toMatch(/grant: grt_\w+, approved by alice on cli at \d{4}-/);
    const none = await runCli(['jobs', 'show', digest.id], { env });
    expect(none.stdout).toContain('delivery: none\n');
    expect(none.stdout).toContain(`grant: none (see: grants show ${digest.id})`);
  });

  it('jobs list shows the next fire on the job\'s wall clock too, its date when that is another day', async () => {
    const late = await createJob(database().db, {
      name: 'new-york-late', owner: 'alice', created_by: 'alice', schedule: '30 23 * * *', timezone: 'America/New_York', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, next_fire_at: new Date('2026-12-08T04:30:00Z'),
    });
    const out = (await runCli(['jobs', 'list'], { env })).stdout;
    expect(out).toMatch(new RegExp(`${nightly.id} .*Europe/Berlin +active +2026-12-07T01:30:00\\.000Z \\(02:30\\)`));
    expect(out).toMatch(new RegExp(`${late.id} .*2026-12-08T04:30:00\\.000Z \\(2026-12-07 23:30\\)`));
  });
});
