import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-builder-transcript-'));
let model: Awaited<ReturnType<typeof startFakeModel>>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  model = await startFakeModel((body) => {
    const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
    if (user.startsWith('forge')) return { content: 'all good\u001b[2K\rFORGED LINE\u202eevil' };
    return body.messages.some((m) => m.role === 'tool') ? { content: 'Listed.' } : { tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] };
  });
  const config = join(workspace, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});
afterAll(() => model.close());

/** An agent job with this prompt, run once as the daemon's worker runs it; the run's id. */
async function agentRun(name: string, prompt: string): Promise<string> {
  const { db } = database();
  const cfg = defaultConfig({ tools: { workspace }, model: { base_url: model.url, name: 'scripted' } });
  const job = await createJob(db, {
    name, owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: ['list_dir'], paused: false,
    payload: { kind: 'agent', prompt },
  });
  const queued = await manualRun({ db }, job.id, 'alice');
  const base = { db, config: cfg, tools: builtinTools(cfg, { db }), guard: createGuard(cfg, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' };
  await executeRun({ ...base, agent: daemonAgentRuntime(base) }, queued!.id);
  return queued!.id;
}

describe('runs show --transcript of an agent run the daemon made', () => {
  it('names each tool the model called, with its arguments', async () => {
    const runId = await agentRun('lister', 'list the workspace');
    expect((await getRun(database().db, runId))?.state).toBe('succeeded');
    const r = await runCli(['runs', 'show', runId, '--transcript'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('[assistant] calls: list_dir({"path":"."})');
    expect(r.stdout).not.toContain('?()');
  });

  it('shows what the model wrote with its escapes and bidi overrides escaped, so it cannot rewrite the terminal', async () => {
    const r = await runCli(['runs', 'show', await agentRun('forger', 'forge a line'), '--transcript'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('all good\\u001b[2K\\u000dFORGED LINE\\u202eevil');
    expect(r.stdout).not.toMatch(/[\u001b\r\u202e]/);
  });
});
