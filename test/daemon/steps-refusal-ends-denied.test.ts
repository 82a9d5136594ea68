import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { createLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import type { StepsPayload } from '../../src/store/schema.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { useTestDatabase } from '../support/db.ts';

// A steps run stopped by a refusal ends denied (the remedy is an approval), a tool error ends failed (the remedy is
// the environment); the run.state record and the daemon's log lines say which refusal, at which gate and job step.
const database = useTestDatabase();

async function runSteps(name: string, steps: StepsPayload['steps'], maxRetries = 0) {
  const db = database().db;
  const config = defaultConfig({ tools: { workspace: mkdtempSync(join(tmpdir(), 'echo-refusal-denied-')), restrict_to_workspace: true } });
  const job = await createJob(db, {
    name, owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
    max_retries: maxRetries, retry_backoff_seconds: 0, payload: { kind: 'steps', steps },
  });
  const queued = (await manualRun({ db }, job.id, 'test'))!;
  const raw: string[] = [];
  const logger = createLogger('info', new Writable({ write(chunk, _e, cb) { raw.push(...String(chunk).split('\n').filter(Boolean)); cb(); } }));
  const base = { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger, workerId: 'test:1' };
  await executeRun({ ...base, agent: daemonAgentRuntime(base) }, queued.id);
  const lines = raw.map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    run: (await getRun(db, queued.id))!,
    decisions: await listAudit(db, { run_id: queued.id, kind: 'gate.decision', order: 'asc' }),
    states: await listAudit(db, { run_id: queued.id, kind: 'run.state', order: 'asc' }),
    started: lines.find((l) => l.msg === 'run started')!, finished: lines.find((l) => l.msg === 'run finished')!,
  };
}

describe('a steps run refused at a step ends denied, naming the refusal', () => {
  it('denied below max_denials_per_run, not retried; run.state carries the rule, gate step and job step', async () => {
    const { run, decisions, states, started, finished } = await runSteps('refused-write', [
      { tool: 'list_dir', args: { path: '.' } }, { tool: 'write_file', args: { path: 'r.txt', content: 'x' } },
    ], 2);
    expect(run, run.error ?? '').toMatchObject({ state: 'denied', denials: 1, attempt: 1 });
    // each decision names the job step it belongs to; prose says "gate step" for the gate's
    expect(decisions.map((d) => [d.data.job_step, d.outcome])).toEqual([[1, 'allow'], [2, 'deny']]);
    const refusal = decisions[1]!;
    expect(run.error).toMatch(new RegExp(`^step 2 \\(write_file\\) refused at gate step ${refusal.step}: ${refusal.rule!.replace('.', '\\.')}`));
    // a refusal is not retried, whatever max_retries says
    expect(states.map((s) => s.outcome)).toEqual(['denied']);
    expect(states[0]).toMatchObject({
      rule: 'run.step_refused', reason: run.error,
      data: { rule: refusal.rule, gate_step: refusal.step, job_step: 2, refused_tool: 'write_file' },
    });
    expect(started).toMatchObject({ trigger: 'manual', nominal_at: run.nominal_at.toISOString() });
    expect(finished).toMatchObject({
      level: 'warn', state: 'denied', trigger: 'manual', nominal_at: run.nominal_at.toISOString(),
      rule: refusal.rule, gate_step: refusal.step, refused_tool: 'write_file',
    });
    expect(finished.duration_ms).toBe(run.finished_at!.getTime() - run.started_at!.getTime());
  });

  it('a tool error (a missing file) still ends failed, with no refusal on its record or log line', async () => {
    const { run, decisions, states, finished } = await runSteps('missing-file', [{ tool: 'read_file', args: { path: 'nope.txt' } }]);
    expect(run, run.error ?? '').toMatchObject({ state: 'failed', denials: 0 });
    expect(decisions.map((d) => [d.data.job_step, d.outcome])).toEqual([[1, 'allow']]);
    expect(states[0]).toMatchObject({ outcome: 'failed', rule: null });
    expect(states[0]!.data).not.toHaveProperty('rule');
    expect(finished).toMatchObject({ level: 'warn', state: 'failed', trigger: 'manual' });
    expect(finished).not.toHaveProperty('rule');
    expect(typeof finished.duration_ms).toBe('number');
  });
});
