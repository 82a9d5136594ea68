import { expect } from 'vitest';
import { LateAgentHost } from '../../src/agent/host.ts';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import type { Config } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { attendedCall } from '../../src/session/attended-call.ts';
import type { Executor } from '../../src/store/db.ts';
import { getRun } from '../../src/store/runs.ts';
import { buildContext } from '../../src/tools/context.ts';

/** The person at the other end of step 11: answers every request with `once`. */
export class Human implements HumanApprover {
  async ask(req: ApprovalRequest): Promise<ApprovalAnswer> {
    return { answer: 'once', approver: 'alice', request_id: req.request_id, call_hash: req.call_hash };
  }
}

/** A job created through the gate by alice at the terminal, as `jobs create` does; its id. */
export async function createJobThroughGate(db: Executor, cfg: Config, approver: HumanApprover | null, args: Record<string, unknown>): Promise<string> {
  const out = await attendedCall(
    { db, config: cfg, tools: builtinTools(cfg, { db }), guard: createGuard(cfg, systemGuardDeps({ dns: false })), approver },
    { tool: 'cronjob', args: { action: 'create', schedule: '0 3 * * *', ...args } },
    buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' }),
  );
  expect(out.result.success, out.result.error).toBe(true);
  return (out.result.output as { job: { id: string } }).job.id;
}

/** Runs a queued run the way the daemon's worker does, with a runtime bound to delegate_task. */
export async function executeAsWorker(db: Executor, cfg: Config, runId: string, workerId = 'test:1') {
  const agentHost = new LateAgentHost();
  const base = { db, config: cfg, tools: builtinTools(cfg, { db, agentHost }), guard: createGuard(cfg, systemGuardDeps({ dns: false })), logger: silentLogger, workerId };
  const agent = daemonAgentRuntime(base);
  agentHost.bind(agent);
  await executeRun({ ...base, agent }, runId);
  return (await getRun(db, runId))!;
}

/** A manual run of the job, executed as the worker does. */
export async function runNowAsWorker(db: Executor, cfg: Config, jobId: string, workerId = 'test:1') {
  const run = await manualRun({ db }, jobId, 'test');
  return executeAsWorker(db, cfg, run!.id, workerId);
}
