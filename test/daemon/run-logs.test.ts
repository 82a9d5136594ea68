import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { reconcile } from '../../src/daemon/reconciler.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { RunQueue } from '../../src/queue/run-queue.ts';
import { createJob } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { getRun } from '../../src/store/runs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import type { Tool } from '../../src/tools/types.ts';
import { authorise } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { slowTool } from '../support/slow-tool.ts';

const database = useTestDatabase();

/** A logger writing into memory: the JSON lines an operator reads in journald. */
function captured() {
  const raw: string[] = [];
  const logger = createLogger('info', new Writable({
    write(chunk, _enc, cb) {
      raw.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  }));
  const lines = () => raw.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, raw, lines, finished: () => lines().find((l) => l.msg === 'run finished') };
}

/** An external tool that fails with a message quoting credentials, as a driver's error may. */
const leakyTool: Tool = {
  name: 'test_leaky', description: 'fails quoting a connection string', parameters: { type: 'object' },
  timeoutSeconds: 10, maxRetries: 0, streamCapable: false, capabilities: [], riskLevel: 'read_only',
  isReady: () => true, readinessDetail: () => [true, 'ready'],
  execute: async () => ({ success: false, errorKind: 'business', error: 'connect postgres://app:Sup3rS3cretPw@db.example:5432/x failed; Authorization: Bearer abcdefghijklmnopqrstuv' }),
};

async function runJob(def: Partial<Parameters<typeof createJob>[1]> & { name: string }, opts: { config?: ConfigInput; authorised?: boolean; extra?: Tool[] } = {}) {
  const db = database().db;
  const config = defaultConfig({ tools: { workspace: mkdtempSync(join(tmpdir(), 'echo-runlogs-')), also_allow: ['test_leaky', 'test_slow'] }, ...opts.config });
  const job: JobRow = await createJob(db, {
    owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], max_retries: 0,
    payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, ...def,
  });
  if (opts.authorised) await authorise(db, job);
  const run = (await manualRun({ db }, job.id, 'test'))!;
  const log = captured();
  const base = { db, config, tools: builtinTools(config, { db }, {}, opts.extra ?? []), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: log.logger, workerId: 'test:1' };
  await executeRun({ ...base, agent: daemonAgentRuntime(base) }, run.id);
  return { job, run: (await getRun(db, run.id))!, log };
}

describe('run outcomes in the daemon log: a run that went wrong says why', () => {
  it('a succeeded run stays at info and names its job', async () => {
    const { job, run, log } = await runJob({ name: 'fine-job' });
    expect(run.state).toBe('succeeded');
    expect(log.finished()).toMatchObject({ level: 'info', run_id: run.id, job_id: job.id, job_name: 'fine-job', state: 'succeeded' });
    expect(log.finished()).not.toHaveProperty('error');
    expect(log.lines().find((l) => l.msg === 'run started')).toMatchObject({ job_id: job.id, job_name: 'fine-job' });
  });

  it('a run failed by a refusal logs at warn with its error and the refusing rule', async () => {
    // no grant, unattended_policy deny: the write is refused, which stops the steps run and ends it denied (not failed: no tool error)
    const { job, run, log } = await runJob({ name: 'refused-write', payload: { kind: 'steps', steps: [{ tool: 'write_file', args: { path: 'x.txt', content: 'y' } }] } });
    expect(run).toMatchObject({ state: 'denied', denials: 1 });
    const line = log.finished()!;
    expect(line).toMatchObject({ level: 'warn', job_id: job.id, job_name: 'refused-write', state: 'denied', denials: 1, refused_tool: 'write_file' });
    expect(line.error).toBe(run.error);
    expect(line.error).toMatch(/step 1 \(write_file\) refused at gate step \d+: \S+/);
    expect(String(line.error)).toContain(String(line.rule));
    expect(line.rule).toMatch(/^unattended\./);
    // the builder reads this error: it says what to do about the refusal
    expect(line.error).toContain('(to fix: have a person approve the job (echo-agent jobs update JOB');
  });

  it('a steps run refused at a step names that refusal throughout: its error, rule and tool agree, and no later step is tried', async () => {
    const { run, log } = await runJob({ name: 'twice-refused', payload: { kind: 'steps', steps: [
      { tool: 'write_file', args: { path: 'x.txt', content: 'y' } }, { tool: 'edit_file', args: { path: 'x.txt', old_text: 'y', new_text: 'z' } },
    ] } });
    const line = log.finished()!;
    // it stops at the first refused step, as at a failed one: the edit is never tried
    expect(run.denials, JSON.stringify(run.output)).toBe(1);
    expect((run.output as { steps: unknown[] }).steps).toHaveLength(1);
    expect(line).toMatchObject({ refused_tool: 'write_file', error: expect.stringMatching(/^step 1 \(write_file\) refused at gate step \d+: /) });
    expect(String(line.error)).toContain(`: ${String(line.rule)}`);
  });

  it('a run stopped by max_denials_per_run logs at warn as denied, with the rule', async () => {
    const { run, log } = await runJob(
      { name: 'denied-job', payload: { kind: 'steps', steps: [{ tool: 'write_file', args: { path: 'x.txt', content: 'y' } }] } },
      { config: { permissions: { approval: { max_denials_per_run: 1 } } } },
    );
    expect(run.state).toBe('denied');
    expect(log.finished()).toMatchObject({
      level: 'warn', job_name: 'denied-job', state: 'denied', denials: 1,
      // the limit, and the refusal that reached it: step, rule
      error: expect.stringMatching(/^stopped after 1 refusals \(max_denials_per_run\): step 1 \(write_file\) refused at gate step \d+: unattended\./),
      rule: expect.stringMatching(/^unattended\./), refused_tool: 'write_file',
    });
  });

  it('an agent run without a model logs at warn with the reason', async () => {
    const { run, log } = await runJob({ name: 'modelless', payload: { kind: 'agent', prompt: 'summarise the day' } });
    expect(run.state).toBe('failed');
    expect(log.finished()).toMatchObject({ level: 'warn', job_name: 'modelless', state: 'failed', error: expect.stringContaining('set model.base_url') });
  });

  it('a run that timed out logs at warn with the timeout', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-runlogs-slow-')), 'executions');
    const { run, log } = await runJob({ name: 'slowpoke', timeout_seconds: 1, payload: { kind: 'steps', steps: [{ tool: 'test_slow', args: {} }] } }, { authorised: true, extra: [slowTool(marker)] });
    expect(run.state).toBe('timed_out');
    expect(log.finished()).toMatchObject({ level: 'warn', job_name: 'slowpoke', state: 'timed_out', error: 'timed out after 1s' });
  });

  it('an attempt that will be retried logs at warn with its error', async () => {
    const flaky: Tool = { ...leakyTool, name: 'test_leaky', execute: async () => ({ success: false, errorKind: 'internal', error: 'upstream answered 502' }) };
    const { run, log } = await runJob({ name: 'flaky', max_retries: 1, payload: { kind: 'steps', steps: [{ tool: 'test_leaky', args: {} }] } }, { authorised: true, extra: [flaky] });
    expect(run.state).toBe('retrying');
    expect(log.lines().find((l) => l.msg === 'run will be retried')).toMatchObject({
      level: 'warn', job_name: 'flaky', state: 'failed', attempt: 1, error: 'step 1 (test_leaky) failed: upstream answered 502',
    });
  });

  it('the error text is redacted: no credential a failure quoted reaches the log (I11)', async () => {
    const { run, log } = await runJob({ name: 'leaky', payload: { kind: 'steps', steps: [{ tool: 'test_leaky', args: {} }] } }, { authorised: true, extra: [leakyTool] });
    expect(run.state).toBe('failed');
    const line = log.finished()!;
    expect(line).toMatchObject({ level: 'warn', job_name: 'leaky', error: expect.stringContaining('step 1 (test_leaky) failed: connect postgres://[REDACTED]@db.example') });
    expect(log.raw.join('\n')).not.toMatch(/Sup3rS3cretPw|abcdefghijklmnopqrstuv/);
  });

  it.each([
    ['http://127.0.0.1:9/hooks/PathToken12345?key=QuerySecret678', 'ssrf.ip.loopback'],
    ['https://hookuser:HookPassw0rd1@hooks.example/PathToken12345?key=QuerySecret678', 'ssrf.userinfo'],
  ])('a failed delivery names the target and the reason, never the target\'s URL credentials or headers (%s)', async (url, rule) => {
    const { job, run, log } = await runJob({ name: 'delivered', delivery: { notify: 'ops' } }, {
      authorised: true, config: { notify: { targets: { ops: { url, headers: { 'x-hook-key': 'HeaderSecret999' } } } } },
    });
    expect(run.state).toBe('succeeded');
    const line = log.lines().find((l) => l.msg === 'run outcome could not be delivered');
    expect(line).toMatchObject({
      level: 'warn', run_id: run.id, job_id: job.id, job_name: 'delivered', target: 'ops',
      reason: `delivery: target "ops" is refused by the network guard (${rule})`,
    });
    expect(log.raw.join('\n')).not.toMatch(/HookPassw0rd1|hookuser|PathToken12345|QuerySecret678|HeaderSecret999|127\.0\.0\.1:9|hooks\.example/);
  });

  it('a run whose lease expired logs its job\'s name, what became of it and why', async () => {
    const { db } = database();
    const job = await createJob(db, {
      name: 'orphaned', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], max_retries: 0,
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
    });
    const run = (await manualRun({ db }, job.id, 'test'))!;
    await claimRun(db, { run_id: run.id, owner: 'dead-host:1', lease_seconds: 60 });
    await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${run.id}`);
    const log = captured();
    const queue = { holds: async () => true, enqueue: async () => {} } as unknown as RunQueue;
    await reconcile(db, queue, log.logger);
    expect(log.lines().find((l) => l.msg === 'run lease expired')).toMatchObject({
      level: 'warn', run_id: run.id, job_id: job.id, job_name: 'orphaned', state: 'interrupted', error: expect.stringContaining('lease of dead-host:1 expired'),
    });
  });
});
