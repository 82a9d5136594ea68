import { mkdtempSync } from 'node:fs';
import { instantsDueAtPause } from '../../src/jobs/next-fire.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentRuntime } from '../../src/agent/runtime.ts';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun, type RunExecutorDeps } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob, pauseJob } from '../../src/store/jobs.ts';
import { cancelRun, getRun, insertRun } from '../../src/store/runs.ts';
import type { Tool } from '../../src/tools/types.ts';
import { authorise } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { until } from '../support/until.ts';

const database = useTestDatabase();
// the steps list this directory; an unset workspace would be one under ./data that nothing made yet
const workspace = mkdtempSync(join(tmpdir(), 'echo-lifecycle-'));
const config = () => defaultConfig({ tools: { workspace } });

/** Whether test_wait started, and the reason of the signal that stopped it, if one did. */
let waitStarted = false;
let waitStoppedBy: { reason: unknown } | null = null;

/** A tool that waits for its signal (or 120 s) and reports whether it was stopped. */
const waiting: Tool = {
  name: 'test_wait', description: 'waits until aborted', parameters: { type: 'object' }, timeoutSeconds: 300, maxRetries: 0,
  streamCapable: false, capabilities: [], riskLevel: 'read_only', isReady: () => true, readinessDetail: () => [true, 'ready'],
  execute: (_p, _c, { signal }) => new Promise((resolve) => {
    waitStarted = true;
    const t = setTimeout(() => resolve({ success: true, output: 'waited' }), 120_000);
    signal.addEventListener('abort', () => { waitStoppedBy = { reason: signal.reason }; clearTimeout(t); resolve({ success: false, errorKind: 'timeout', error: 'stopped' }); }, { once: true });
  }),
};

function depsFor(config: Config, extra: Partial<RunExecutorDeps> = {}): RunExecutorDeps {
  const db = database().db;
  const base = { db, config, tools: builtinTools(config, { db }, {}, [waiting]), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' };
  return { ...base, agent: daemonAgentRuntime(base), ...extra };
}

async function queued(steps: { tool: string; args: Record<string, unknown> }[], over: { max_retries?: number } = {}) {
  const db = database().db;
  const job = await createJob(db, { name: 'lifecycle', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', payload: { kind: 'steps', steps }, tools: [], ...over });
  await authorise(db, job);
  return { job, run: (await manualRun({ db }, job.id, 'test'))! };
}

describe('a run ends in a final state with its cause', () => {
  it('a payload that throws fails the run at once with the error, not at lease expiry', async () => {
    const { run } = await queued([{ tool: 'list_dir', args: { path: '.' } }]);
    const base = depsFor(config());
    const broken = { ...base.agent!, gateFor: () => { throw new Error('connection reset by peer'); } } as AgentRuntime;
    const result = await executeRun({ ...base, agent: broken }, run.id);
    expect(result).toMatchObject({ kind: 'finished', state: 'failed' });
    expect(await getRun(database().db, run.id)).toMatchObject({ state: 'failed', error: expect.stringContaining('internal error: connection reset by peer') });
  });

  it('a step with invalid arguments stops the list, as a failed step does: the steps after it may depend on it', async () => {
    const { run } = await queued([{ tool: 'list_dir', args: { pth: '.' } }, { tool: 'list_dir', args: { path: '.' } }]);
    const result = await executeRun(depsFor(config()), run.id);
    expect(result).toMatchObject({ kind: 'finished', state: 'failed' });
    const stored = await getRun(database().db, run.id);
    expect((stored!.output as { steps: { index: number }[] }).steps.map((s) => s.index)).toEqual([0]);
    expect(stored!.error).toMatch(/step 1 \(list_dir\): invalid arguments/);
  });

  it('a run cancelled while it works is stopped within seconds, and nothing records another outcome for it', async () => {
    const { run } = await queued([{ tool: 'test_wait', args: {} }]);
    // the cancel reaches the run with its next lease renewal (every lease/3 s): a lease of 10 s is renewed every
    // 3.3 s, and one slow renewal under load does not end the run for want of its lease
    const deps = depsFor(defaultConfig({ tools: { also_allow: ['test_wait'] }, daemon: { lease_seconds: 10 } }));
    waitStarted = false;
    waitStoppedBy = null;
    const running = executeRun(deps, run.id);
    const db = database().db;
    await until('the tool running', () => waitStarted);
    await cancelRun(db, { run_id: run.id, reason: 'cancelled by admin' });
    const result = await running;
    // stopped through its signal, for the cancel: not left to run out its own 120 s (past this test's timeout), nor timed out at 300 s
    expect(waitStoppedBy, 'the tool was never told to stop').not.toBeNull();
    expect(result).toMatchObject({ kind: 'ended_elsewhere', state: 'cancelled' });
    expect(await getRun(db, run.id)).toMatchObject({ state: 'cancelled', error: 'cancelled by admin' });
    const records = await listAudit(db, { run_id: run.id, order: 'asc' });
    expect(records.filter((r) => r.kind === 'run.state')).toEqual([]);
    expect(records.find((r) => r.kind === 'run.attempt_abandoned')).toMatchObject({ outcome: 'cancelled' });
  }, 60_000);

  it('a fired run of a job paused after it was queued is cancelled with a record; a manual one still runs', async () => {
    const db = database().db;
    const { job, run: manual } = await queued([{ tool: 'list_dir', args: { path: '.' } }]);
    const fired = (await insertRun(db, { job_id: job.id, nominal_at: new Date('2026-12-01T03:00:00Z'), trigger: 'cron' }))!;
    await pauseJob(db, job.id, { actor: 'admin', note: 'maintenance' }, instantsDueAtPause);
    const deps = depsFor(config());
    expect(await executeRun(deps, fired.id)).toMatchObject({ kind: 'finished', state: 'cancelled' });
    expect(await getRun(db, fired.id)).toMatchObject({ state: 'cancelled', error: 'the job was paused before the run started' });
    expect((await listAudit(db, { run_id: fired.id, kind: 'run.state' }))[0]).toMatchObject({ outcome: 'cancelled', reason: 'the job was paused before the run started' });
    expect(await executeRun(deps, manual.id)).toMatchObject({ kind: 'finished', state: 'succeeded' });
  });
});
