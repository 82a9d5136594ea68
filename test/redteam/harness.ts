import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { LateAgentHost } from '../../src/agent/host.ts';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { attendedCall } from '../../src/session/attended-call.ts';
import { listAudit } from '../../src/store/audit.ts';
import { getRun } from '../../src/store/runs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel, type ChatBody, type Reply } from '../support/fake-model.ts';

/** A hostile model's script: each turn's reply, by the run's prompt. */
export type HostileScript = (body: ChatBody, turn: number) => Reply;

class Human implements HumanApprover {
  async ask(req: ApprovalRequest): Promise<ApprovalAnswer> {
    return { answer: 'once', approver: 'alice', request_id: req.request_id, call_hash: req.call_hash };
  }
}

/**
 * A daemon's data dir (workspace inside it, as under systemd and in the image), a scripted model keyed by
 * the run's prompt, and jobs created through the gate and run as the worker runs them.
 */
export function redTeam(overrides: (dataDir: string, workspace: string) => Record<string, unknown> = () => ({})) {
  const database = useTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'echo-redteam-'));
  const workspace = join(dataDir, 'workspace');
  mkdirSync(workspace);
  const scripts = new Map<string, HostileScript>();
  const turns = new Map<string, number>();
  let model: Awaited<ReturnType<typeof startFakeModel>>;
  beforeAll(async () => {
    model = await startFakeModel((body) => {
      const prompt = body.messages.find((m) => m.role === 'user')?.content ?? '';
      const script = [...scripts.entries()].find(([k]) => prompt.startsWith(k))?.[1];
      const n = turns.get(prompt) ?? 0;
      turns.set(prompt, n + 1);
      return script ? script(body, n) : { content: 'done' };
    });
  });
  afterAll(() => model.close());

  const config = (): Config => defaultConfig({
    daemon: { data_dir: dataDir },
    model: { base_url: model.url, name: 'scripted', api_key: 'sk-redteam-model-key-0001' },
    ...overrides(dataDir, workspace),
  } as Parameters<typeof defaultConfig>[0]);

  /** An agent job whose cronjob call a human approved (a job's grant covers its WRITE and EXEC calls). */
  async function agentJob(prompt: string, script: HostileScript, opts: { tools?: string[]; payload?: Record<string, unknown> } = {}): Promise<string> {
    scripts.set(prompt, script);
    const db = database().db;
    const cfg = config();
    const out = await attendedCall(
      { db, config: cfg, tools: builtinTools(cfg, { db }), guard: createGuard(cfg, { dns: false }), approver: new Human() },
      { tool: 'cronjob', args: { action: 'create', name: prompt.slice(0, 20), schedule: '0 3 * * *', payload: opts.payload ?? { kind: 'agent', prompt }, ...(opts.tools ? { options: { tools: opts.tools } } : {}) } },
      buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' }),
    );
    expect(out.result.success, out.result.error).toBe(true);
    return (out.result.output as { job: { id: string } }).job.id;
  }

  /** Runs a queued run the way the daemon's worker does, with delegate_task bound to the runtime. */
  async function execute(runId: string) {
    const db = database().db;
    const cfg = config();
    const agentHost = new LateAgentHost();
    const base = { db, config: cfg, tools: builtinTools(cfg, { db, agentHost }), guard: createGuard(cfg, { dns: false }), logger: silentLogger, workerId: 'redteam:1' };
    const agent = daemonAgentRuntime(base);
    agentHost.bind(agent);
    await executeRun({ ...base, agent }, runId);
    return (await getRun(db, runId))!;
  }

  async function runJob(jobId: string) {
    const run = await manualRun({ db: database().db }, jobId, 'redteam');
    return execute(run!.id);
  }

  /** The run's gate decisions as [tool, outcome, step, rule]. */
  async function decisions(runId: string) {
    const rows = await listAudit(database().db, { run_id: runId, kind: 'gate.decision', order: 'asc' });
    return rows;
  }

  return { database, dataDir, workspace, config, agentJob, execute, runJob, decisions, model: () => model };
}
