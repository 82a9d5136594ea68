import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJobThroughGate, executeAsWorker, Human, runNowAsWorker } from '../support/agent-jobs.ts';
import { useTestDatabase } from '../support/db.ts';
import { byPromptTurn, startFakeModel, type ChatBody, type Reply } from '../support/fake-model.ts';

/** A hostile model's script: each turn's reply, by the run's prompt. */
export type HostileScript = (body: ChatBody, turn: number) => Reply;


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
  let model: Awaited<ReturnType<typeof startFakeModel>>;
  beforeAll(async () => {
    model = await startFakeModel(byPromptTurn((prompt, n, body) => {
      const script = [...scripts.entries()].find(([k]) => prompt.startsWith(k))?.[1];
      return script ? script(body, n) : { content: 'done' };
    }));
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
    return createJobThroughGate(database().db, config(), new Human(), { name: prompt.slice(0, 20), payload: opts.payload ?? { kind: 'agent', prompt }, ...(opts.tools ? { options: { tools: opts.tools } } : {}) });
  }

  /** Runs a queued run the way the daemon's worker does, with delegate_task bound to the runtime. */
  const execute = (runId: string) => executeAsWorker(database().db, config(), runId, 'redteam:1');
  const runJob = (jobId: string) => runNowAsWorker(database().db, config(), jobId, 'redteam:1');

  /** The run's gate decisions as [tool, outcome, step, rule]. */
  async function decisions(runId: string) {
    const rows = await listAudit(database().db, { run_id: runId, kind: 'gate.decision', order: 'asc' });
    return rows;
  }

  return { database, dataDir, workspace, config, agentJob, execute, runJob, decisions, model: () => model };
}
