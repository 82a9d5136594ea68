import { describe, expect, it } from 'vitest';
import { runAgentLoop, type AgentLimits, type CallOutcome, type RunSpending } from '../../src/agent/loop.ts';
import { estimateTokens, type ChatClient, type ChatResponse } from '../../src/agent/model-client.ts';

const limits: AgentLimits = { maxTurns: 10, maxTokens: 100, tokenBudget: 1_000, maxDenials: 3, temperature: 0 };
const allowed: CallOutcome = { decision: { outcome: 'allow', step: 5, rule: 'attended.low_risk', reason: 'ok' }, result: { success: true, output: 'ok' } };

/** A model that asks for the same two calls every turn, reporting `tokens` per response. */
function model(tokens: number): ChatClient & { turns: number } {
  const m = {
    turns: 0,
    async complete(): Promise<ChatResponse> {
      m.turns++;
      return { content: null, finish_reason: 'tool_calls', total_tokens: tokens, tool_calls: [
        { id: `a${m.turns}`, name: 'read_file', arguments: '{}' }, { id: `b${m.turns}`, name: 'delegate_task', arguments: '{}' },
      ] };
    },
  };
  return m;
}

const loop = (chat: ChatClient, call: (tool: string) => Promise<CallOutcome>, spent?: RunSpending) => runAgentLoop({
  prompt: 'p', system: 's', model: 'm', tools: [], chat, limits, signal: new AbortController().signal,
  call: ({ tool }) => call(tool), ...(spent ? { spent } : {}),
});

describe('one budget for a run and its sub-agents', () => {
  it('refusals a sub-agent collected stop the parent before its next call', async () => {
    const spent: RunSpending = { tokens: 0, denials: 0 };
    const ran: string[] = [];
    const out = await loop(model(10), async (tool) => {
      ran.push(tool);
      // the sub-agent behind delegate_task was refused three times, on the shared count
      if (tool === 'delegate_task') spent.denials = 3;
      return allowed;
    }, spent);
    expect(out.status).toBe('denied');
    expect(ran).toEqual(['read_file', 'delegate_task']);
  });

  it('tokens a sub-agent used count against the parent\'s budget', async () => {
    const spent: RunSpending = { tokens: 0, denials: 0 };
    const out = await loop(model(10), async (tool) => {
      if (tool === 'delegate_task') spent.tokens += 2_000;
      return allowed;
    }, spent);
    expect(out.status).toBe('token_budget');
  });

  it('the response that crosses the budget does not get its calls run', async () => {
    const ran: string[] = [];
    const out = await loop(model(5_000), async (tool) => { ran.push(tool); return allowed; });
    expect(out.status).toBe('token_budget');
    expect(ran).toEqual([]);
  });

  it('an endpoint without usage is still counted, at about four characters a token', () => {
    expect(estimateTokens([{ role: 'user', content: 'x'.repeat(400) }], 'y'.repeat(40), [])).toBeGreaterThan(100);
  });
});
