import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { answerApproval, listApprovals } from '../../src/store/approvals.ts';
import { listAudit } from '../../src/store/audit.ts';
import { authorizationFor, liveGrant } from '../../src/store/grants.ts';
import { listJobs } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { cliOnTerminal, runCli, waitingApproval } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';
import { TEST_REDIS_URL as REDIS_URL, useRedisPrefix } from '../support/redis.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-mission-e2e-'));
const prefix = useRedisPrefix('mission');

/**
 * The job the model asks for: a WRITE step, then a write below `<name>-out`, a directory not there when the
 * job is created (a write already outside then is refused before anyone is asked) and made a symlink out of
 * the workspace before it runs, so the guard refuses it in the run.
 */
const jobArgs = (name: string) => ({
  action: 'create', name, schedule: '0 2 * * *', timezone: 'Europe/Berlin',
  payload: { kind: 'steps', steps: [
    { tool: 'write_file', args: { path: `${name}.txt`, content: `written by ${name}` } },
    { tool: 'write_file', args: { path: `${name}-out/escaped.txt`, content: 'x' } },
  ] },
});

/** `<name>-out` in the workspace, now a symlink to a directory outside it. */
function linkOutside(name: string): string {
  const outside = mkdtempSync(join(tmpdir(), 'echo-mission-outside-'));
  symlinkSync(outside, join(workspace, `${name}-out`));
  return outside;
}

let model: Awaited<ReturnType<typeof startFakeModel>>;
let configFile: string;
beforeAll(async () => {
  model = await startFakeModel((body) => {
    const prompt = body.messages.find((m) => m.role === 'user')?.content ?? '';
    const name = /job named (\S+)/.exec(prompt)?.[1] ?? 'unnamed';
    return body.messages.some((m) => m.role === 'tool') ? { content: `Created ${name}.` } : { tool_calls: [{ name: 'cronjob', arguments: jobArgs(name) }] };
  });
  configFile = join(workspace, 'echo-agent.yaml');
  writeFileSync(configFile, [
    `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    `tools:\n  workspace: ${workspace}\n  restrict_to_workspace: true`,
    `model:\n  base_url: ${model.url}\n  name: scripted`,
    `queue:\n  prefix: ${prefix}`,
    'daemon:\n  tick_seconds: 0.2\n  http:\n    port: 0',
  ].join('\n'));
});
afterAll(async () => {
  await model.close();
});

/** `echo-agent run` on a pseudo-terminal (util-linux `script`), answering the approval prompt. */
const runOnTerminal = (prompt: string, answer: string) => cliOnTerminal(['run', prompt, '--as', 'alice'], { ECHO_AGENT_CONFIG: configFile }, answer);

/** The daemon, on this database and Redis, runs the job once, unattended. */
async function daemonRuns(jobId: string) {
  const { config } = loadConfig(configFile);
  const daemon = await startDaemon(config, { logger: silentLogger, database: { url: database().url, schema: database().schema }, queue: { kind: 'redis', url: REDIS_URL }, http: false });
  try {
    const run = await manualRun({ db: daemon.database.db, enqueue: (id) => daemon.queue.enqueue(id) }, jobId, 'test');
    const started = Date.now();
    for (;;) {
      const r = (await getRun(database().db, run!.id))!;
      if (!['queued', 'running', 'retrying'].includes(r.state)) return r;
      if (Date.now() - started > 30_000) throw new Error(`run still ${r.state}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  } finally {
    await daemon.stop();
  }
}

function expectMissionRun(run: NonNullable<Awaited<ReturnType<typeof getRun>>>, name: string, outside: string) {
  expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
  expect(run.cron_authorized).toBe(true);
  const steps = (run.output as { steps: { tool: string; decision: { outcome: string; step: number; rule: string } }[] }).steps;
  expect(steps.map((s) => [s.tool, s.decision.outcome, s.decision.step, s.decision.rule])).toEqual([
    ['write_file', 'allow', 4, 'unattended.cron_authorized'],
    ['write_file', 'deny', 1, 'path.outside_workspace'],
  ]);
  expect(readFileSync(join(workspace, `${name}.txt`), 'utf8')).toBe(`written by ${name}`);
}

/** The grant's tools came from the request the person answered, not from a later reading of the configuration. */
async function expectScopeFromRequest(jobId: string) {
  const [issued] = await listAudit(database().db, { job_id: jobId, kind: 'grant.issued' });
  expect(issued?.data).toMatchObject({ tool_scope: ['write_file'], tool_scope_from: 'approval_request' });
}

describe('the mission, end to end: an attended session creates a job, the daemon runs it unattended', () => {
  it('approved on the terminal: the job is cron_authorized, its WRITE step succeeds and its write outside the workspace is refused', async () => {
    const r = await runOnTerminal('Create a job named tty-nightly', 'y');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('Approval needed');
    expect(r.out).toContain('approving makes the job cron_authorized');
    expect(r.out).toContain('Created tty-nightly.');
    const job = (await listJobs(database().db)).find((j) => j.name === 'tty-nightly')!;
    expect(await authorizationFor(database().db, job.id)).toMatchObject({ cron_authorized: true, rule: 'grant.valid' });
    expect(await liveGrant(database().db, job.id)).toMatchObject({ approver: 'alice', channel: 'cli', tool_scope: ['write_file'] });
    expect(r.out).toContain('the grant covers only the tools listed here');
    await expectScopeFromRequest(job.id);
    const outside = linkOutside('tty-nightly');
    expectMissionRun(await daemonRuns(job.id), 'tty-nightly', outside);
  });

  it('refused on the terminal: no job exists', async () => {
    const r = await runOnTerminal('Create a job named tty-refused', 'n');
    expect(r.out).toContain('Approval needed');
    expect((await listJobs(database().db)).find((j) => j.name === 'tty-refused')).toBeUndefined();
  });

  it('approved through the approvals API while the session waits (no terminal)', async () => {
    // the code bob is given by whoever started the session: it is shown on that command's error output only
    const seen: { waiting?: { id: string; code: string } | null } = {};
    const session = runCli(['run', 'Create a job named api-nightly', '--as', 'alice', '--json'], {
      env: { ECHO_AGENT_CONFIG: configFile }, timeoutMs: 60_000, onStderr: (text) => { seen.waiting ??= waitingApproval(text); },
    });
    let pending;
    for (const started = Date.now(); !pending || !seen.waiting; await new Promise((res) => setTimeout(res, 100))) {
      [pending] = await listApprovals(database().db, { state: 'pending' });
      if (Date.now() - started > 30_000) throw new Error('no approval request appeared');
    }
    expect(pending.tool).toBe('cronjob');
    // the waiting session recorded what the grant will cover, for whoever answers elsewhere
    expect(pending.tool_scope).toEqual(['write_file']);
    expect((await answerApproval(database().db, { id: pending.id, call_hash: pending.call_hash, answer: 'once', answered_by: 'bob', code: seen.waiting.code })).ok).toBe(true);
    const r = await session;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', final: 'Created api-nightly.' });
    const job = (await listJobs(database().db)).find((j) => j.name === 'api-nightly')!;
    const answered = (await listApprovals(database().db, { state: 'approved' })).find((a) => a.id === pending.id)!;
    // approved when bob answered, not when the grant row was written after the call ran
    expect(await liveGrant(database().db, job.id)).toMatchObject({ approver: 'bob', approval_id: pending.id, approved_at: answered.answered_at, tool_scope: ['write_file'] });
    await expectScopeFromRequest(job.id);
    const outside = linkOutside('api-nightly');
    expectMissionRun(await daemonRuns(job.id), 'api-nightly', outside);
  });
});
