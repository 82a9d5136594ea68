import { mkdtempSync, writeFileSync } from 'node:fs';
import { instantsDueAtPause } from '../../src/jobs/next-fire.ts';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueGrant, revokeGrant } from '../../src/store/grants.ts';
import { createJob, pauseJob } from '../../src/store/jobs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-why-not-'));
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

const aJob = (name: string) => createJob(database().db, {
  name, owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
  payload: { kind: 'steps', steps: [{ tool: 'write_file', args: { path: 'r.txt', content: 'x' } }] }, next_fire_at: new Date('2099-01-01T03:00:00Z'),
});

describe('grants show, for a job that will not do what it once could', () => {
  it('names who revoked the last grant, when and why; grants list says the grant no longer authorises', async () => {
    const job = await aJob('revoked-nightly');
    const grant = await issueGrant(database().db, { job_id: job.id, approval_id: 'apr_x', approver: 'bob', channel: 'cli', tool_scope: ['write_file'] });
    await revokeGrant(database().db, { job_id: job.id, by: 'carol', why: 'incident 42' });
    const text = await runCli(['grants', 'show', 'revoked-nightly'], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`grant: none; the last one, ${grant.id} \\(approved by bob at .*\\), ended at .* by carol: incident 42`));
    const json = JSON.parse((await runCli(['grants', 'show', job.id, '--json'], { env })).stdout) as { last_grant: unknown; grant: unknown; will_not_fire: unknown };
    expect(json.will_not_fire).toBeNull();
    expect(json.grant).toBeNull();
    expect(json.last_grant).toMatchObject({ id: grant.id, approver: 'bob', ended_by: 'carol', why: 'incident 42' });
    const list = await runCli(['grants', 'list', '--all', '--job', job.id], { env });
    const row = list.stdout.split('\n').find((l) => l.startsWith(grant.id))!;
    expect(row).toContain('no (ended)');
    expect(row).not.toMatch(/\byes\b/);
  });

  it('names the OS account behind a revoke given --as someone, and refuses an empty job with exit 64', async () => {
    const job = await aJob('revoked-by-cli');
    await issueGrant(database().db, { job_id: job.id, approval_id: 'apr_y', approver: 'bob', channel: 'cli', tool_scope: ['write_file'] });
    const revoked = await runCli(['grants', 'revoke', job.id, '--why', 'incident 43', '--as', 'carol'], { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    const text = await runCli(['grants', 'show', job.id], { env });
    expect(text.stdout).toMatch(new RegExp(`ended at .* by carol \\(OS account ${userInfo().username} on ${hostname()}\\): incident 43`));
    const json = JSON.parse((await runCli(['grants', 'show', job.id, '--json'], { env })).stdout) as { last_grant: unknown };
    expect(json.last_grant).toMatchObject({ ended_by: 'carol', ended_from: { os_account: userInfo().username, host: hostname() } });
    const empty = await runCli(['grants', 'show', ''], { env });
    expect(empty.code).toBe(64);
    expect(empty.stderr).toContain('grants show: the job is empty');
  });

  it('says a job never approved by a human was never approved', async () => {
    const job = await aJob('never-approved');
    expect((await runCli(['grants', 'show', job.id], { env })).stdout).toContain('grant: none (never approved by a human)');
  });

  it('lists the tools it names that no run may use, and says so in words when there are none', async () => {
    const named = (name: string, tools: string[]) => createJob(database().db, {
      name, owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools, paused: false,
      payload: { kind: 'steps', steps: tools.map((tool) => ({ tool, args: {} })) },
    });
    const withExec = await named('names-exec', ['write_file', 'exec']);
    const out = (await runCli(['grants', 'show', withExec.id], { env })).stdout;
    expect(out.slice(out.indexOf('not available to its runs:'))).toMatch(/\nexec +\S+/);
    const plain = await named('names-write-only', ['write_file']);
    expect((await runCli(['grants', 'show', plain.id], { env })).stdout).toContain('not available to its runs: none of the tools it names\n');
  });

  it('an agent job naming a few tools is not shown every other tool as a refusal: one line counts them, --json lists them', async () => {
    const job = await createJob(database().db, {
      name: 'agent-two-tools', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: ['read_file', 'write_file'], paused: false,
      payload: { kind: 'agent', prompt: 'tidy the notes' },
    });
    const out = (await runCli(['grants', 'show', job.id], { env })).stdout;
    const tail = out.slice(out.indexOf('not available to its runs'));
    expect(tail).toMatch(/^not available to its runs: none of the tools it names\n\(and \d+ tools its tools list does not name; --json lists them\)\n$/);
    const json = JSON.parse((await runCli(['grants', 'show', job.id, '--json'], { env })).stdout) as { removed: { name: string; rule: string }[] };
    expect(json.removed.length).toBeGreaterThan(10);
    expect(json.removed.map((t) => t.name)).toContain('exec');
  });

  it('says a paused job fires nothing until resumed, with its note, before the per-tool table', async () => {
    const job = await aJob('paused-nightly');
    await pauseJob(database().db, job.id, { actor: 'ops', note: 'db maintenance' }, instantsDueAtPause);
    const out = (await runCli(['grants', 'show', job.id], { env })).stdout;
    expect(out).toContain('PAUSED (db maintenance): fires nothing until resumed');
    expect(out).not.toContain('next 2099');
    expect(out).toContain('it will not fire (paused until resumed); if it ran, per tool:');
  });

  it('says a removed job fires never', async () => {
    const job = await aJob('removed-nightly');
    expect((await runCli(['jobs', 'remove', job.id, '--why', 'obsolete'], { env })).code).toBe(0);
    const out = (await runCli(['grants', 'show', job.id], { env })).stdout;
    expect(out).toMatch(/REMOVED at .*: fires never/);
    expect(out).toContain('it will not fire (removed); if it ran, per tool:');
  });
});

describe('jobs pause and resume that change nothing', () => {
  it('say so, and a second pause keeps the note', async () => {
    const job = await aJob('pause-twice');
    expect((await runCli(['jobs', 'pause', job.id, '--note', 'db maintenance'], { env })).stdout).toMatch(/pause: .* ok/);
    const again = await runCli(['jobs', 'pause', job.id], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to do (already paused: db maintenance)');
    expect((await runCli(['jobs', 'list'], { env })).stdout).toContain('paused: db maintenance');
    expect((await runCli(['jobs', 'resume', job.id], { env })).stdout).toMatch(/resume: .* ok/);
    expect((await runCli(['jobs', 'resume', job.id], { env })).stdout).toContain('nothing to do (not paused)');
  });

  it('warns that a paused one-shot loses its instant if it passes before the resume; a recurring job gets no warning', async () => {
    const oneShot = await createJob(database().db, {
      name: 'one-shot', owner: 'alice', created_by: 'alice', schedule: 'at 2099-01-01T09:00:00Z', timezone: 'UTC', tools: [], paused: false,
      next_fire_at: new Date('2099-01-01T09:00:00Z'), payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
    });
    const paused = await runCli(['jobs', 'pause', oneShot.id], { env });
    expect(paused.code).toBe(0);
    expect(paused.stderr).toContain("this one-shot job's instant (2099-01-01T09:00:00.000Z) does not run if it passes while the job is paused");
    const recurring = await runCli(['jobs', 'pause', (await aJob('recurring')).id], { env });
    expect(recurring.stderr).not.toContain('one-shot');
  });
});
