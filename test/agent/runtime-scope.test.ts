import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';
import { byPromptTurn, startFakeModel } from '../support/fake-model.ts';
import { until } from '../support/until.ts';

const database = useTestDatabase();
let model: Awaited<ReturnType<typeof startFakeModel>>;
// the parent's answer is held until the child has run, so the child runs while the parent is live in this process
let childDone!: () => void;
const childFinished = new Promise<void>((r) => { childDone = r; });
beforeAll(async () => {
  model = await startFakeModel(byPromptTurn((prompt, n) => {
    if (prompt === 'parent') return { content: 'parent done', until: childFinished };
    return n === 0 ? { tool_calls: [{ name: 'cronjob', arguments: { action: 'list' } }] } : { content: 'child done' };
  }));
});
afterAll(() => model.close());

describe('a child job\'s run in the process where its creator still runs', () => {
  it('keeps its own audit scope and refusal count', async () => {
    const db = database().db;
    const config = defaultConfig({ model: { base_url: model.url, name: 'scripted', api_key: 'sk-scope-test-1234' } });
    const runtime = daemonAgentRuntime({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' });
    const parentCtx = buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_parent1' });
    let parentDenials = 0;
    let childDenials = 0;
    const signal = new AbortController().signal;
    const parent = runtime.run('parent', parentCtx, { signal, scope: { job_id: 'job_parent1', run_id: 'run_parent1' }, onDenial: async () => ++parentDenials });
    await until('the parent asking the model', () => model.requests.some((b) => b.messages.some((m) => m.role === 'user' && m.content === 'parent')));
    const childCtx = buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_child1', parent_execution_id: parentCtx.execution_id });
    const child = await runtime.run('child', childCtx, { signal, scope: { job_id: 'job_child1', run_id: 'run_child1' }, onDenial: async () => ++childDenials });
    childDone();
    await parent;
    expect(child.status).toBe('completed');
    expect(childDenials).toBe(1);
    expect(parentDenials).toBe(0);
    expect(await listAudit(db, { run_id: 'run_child1', kind: 'gate.decision' })).toHaveLength(1);
    expect(await listAudit(db, { run_id: 'run_parent1', kind: 'gate.decision' })).toHaveLength(0);
  });
});

describe('an unattended sub-agent whose run this runtime does not know', () => {
  it('does not run: it would lose the run\'s grant check and refusal count', async () => {
    const db = database().db;
    const config = defaultConfig({ model: { base_url: model.url, name: 'scripted', api_key: 'sk-scope-test-1234' } });
    const runtime = daemonAgentRuntime({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' });
    const orphan = buildContext({ unattended: true, cron_authorized: true, channel: 'cron', session_key: 'cron:job_orphan', parent_execution_id: 'exec-nobody-knows' });
    const asked = model.requests.length;
    const out = await runtime.run('orphan', orphan, { signal: new AbortController().signal });
    expect(out).toMatchObject({ status: 'model_error', error: expect.stringContaining('needs that run to be known') });
    expect(model.requests.length).toBe(asked);
  });
});
