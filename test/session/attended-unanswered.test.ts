import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentChatClient } from '../../src/agent/model-config.ts';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { attendedCall } from '../../src/session/attended-call.ts';
import { attendedContext, attendedTurn } from '../../src/session/attended-session.ts';
import { createApproval, getApproval } from '../../src/store/approvals.ts';
import { approvalRecordOf } from '../../src/store/approver.ts';
import { newAnswerCode } from '../../src/store/answer-code.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

const database = useTestDatabase();
let model: Awaited<ReturnType<typeof startFakeModel>>;
beforeAll(async () => {
  model = await startFakeModel((_body, n) => (n === 0 ? { tool_calls: [{ name: 'exec', arguments: { command: 'curl http://169.254.169.254/latest/' } }] } : { content: 'ok' }));
});
afterAll(() => model.close());

/** Persists the request, then ends its wait only `settlesAfterMs` after being told to stop, or fails at once. */
function approver(mode: { settlesAfterMs: number } | 'fails'): HumanApprover & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    async ask(req, signal): Promise<ApprovalAnswer> {
      asked.push(req);
      await createApproval(database().db, approvalRecordOf(req, null, newAnswerCode()));
      if (mode === 'fails') throw new Error('the approval channel went away');
      await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      await new Promise((r) => setTimeout(r, mode.settlesAfterMs));
      return { answer: 'timeout' };
    },
  };
}

async function waitingCall(a: HumanApprover, signal?: AbortSignal) {
  const config = defaultConfig();
  const { db } = database();
  return attendedCall(
    { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), approver: a },
    { tool: 'exec', args: { command: 'curl http://169.254.169.254/latest/' } },
    buildContext({ channel: 'telegram', user_id: 'alice' }), 0, signal ? { signal } : {},
  );
}

describe('an attended call nobody answered leaves no request that can still be answered', () => {
  it('stopped while it waits, the request is withdrawn by the time the call returns, however long the approver takes to settle', async () => {
    const slow = approver({ settlesAfterMs: 5_000 });
    const stop = new AbortController();
    const call = waitingCall(slow, stop.signal);
    while (slow.asked.length === 0 || !(await getApproval(database().db, slow.asked[0]!.request_id))) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    const out = await call;
    expect(out.decision).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.human.cancelled' });
    expect((await getApproval(database().db, slow.asked[0]!.request_id))?.state).toBe('withdrawn');
  }, 15_000);

  it('an approver that fails after asking leaves its request withdrawn', async () => {
    const failing = approver('fails');
    const out = await waitingCall(failing);
    expect(out.decision).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.human.unavailable' });
    expect((await getApproval(database().db, failing.asked[0]!.request_id))?.state).toBe('withdrawn');
  });

  it('an agent turn (echo-agent run) stopped while a call waits leaves its request withdrawn too', async () => {
    const { db } = database();
    const config = defaultConfig({ model: { base_url: model.url, name: 'scripted', api_key: 'sk-session-unanswered-1' } });
    const slow = approver({ settlesAfterMs: 5_000 });
    const deps = { config, db, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config), approver: slow, smartReviewer: null };
    const stop = new AbortController();
    const turn = attendedTurn(deps, 'look at the metadata', attendedContext('alice', 'telegram'), stop.signal);
    while (slow.asked.length === 0 || !(await getApproval(db, slow.asked[0]!.request_id))) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    await turn;
    expect((await getApproval(db, slow.asked[0]!.request_id))?.state).toBe('withdrawn');
  }, 15_000);
});
