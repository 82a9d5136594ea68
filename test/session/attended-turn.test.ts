import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentChatClient } from '../../src/agent/model-config.ts';
import { LateAgentHost } from '../../src/agent/host.ts';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { attendedContext, attendedRuntime, attendedTurn } from '../../src/session/attended-session.ts';
import { listJobs } from '../../src/store/jobs.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

const database = useTestDatabase();
let model: Awaited<ReturnType<typeof startFakeModel>>;
beforeAll(async () => {
  model = await startFakeModel((_body, n) => (n === 0 ? { tool_calls: [{ name: 'spawn_task', arguments: { prompt: 'background chore' } }] } : { content: 'spawned' }));
});
afterAll(() => model.close());

const yes: HumanApprover = {
  ask: async (req: ApprovalRequest): Promise<ApprovalAnswer> => ({ answer: 'once', approver: 'alice', request_id: req.request_id, call_hash: req.call_hash }),
};

describe('an attended session', () => {
  it('holds a child job it spawns to the session\'s own tool set, not the daemon\'s profile (I5)', async () => {
    const db = database().db;
    // a narrow session: the minimal profile plus spawn_task
    const config = defaultConfig({ tools: { profile: 'minimal', also_allow: ['spawn_task'] }, model: { base_url: model.url, name: 'scripted', api_key: 'sk-session-1234' } });
    const agentHost = new LateAgentHost();
    const deps = { config, db, tools: builtinTools(config, { db, agentHost }), guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config), approver: yes, smartReviewer: null, agentHost };
    const ctx = attendedContext('alice', 'cli');
    const session = attendedRuntime({ ...deps }).offered(ctx).map((t) => t.name);
    const turn = await attendedTurn(deps, 'spawn something', ctx, new AbortController().signal);
    expect(turn.outcome.status, turn.outcome.error ?? '').toBe('completed');
    const child = (await listJobs(db)).find((j) => j.origin === 'spawn_task');
    expect(child).toBeDefined();
    expect(child!.tools).toEqual(session);
    expect(child!.tools).not.toContain('write_file');
    expect(turn.ctx.execution_id).toBe(ctx.execution_id);
  });
});
