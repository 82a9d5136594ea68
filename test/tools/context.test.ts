import { describe, expect, it } from 'vitest';
import { buildContext, contextForCall, idempotencyKey, nestedContext, nextAttempt } from '../../src/tools/context.ts';

// The seed's ToolExecutionContext fields, in order.
const SEED_FIELDS = [
  'execution_id', 'trace_id', 'session_key', 'memory_scope', 'user_id', 'agent_id', 'attempt_index', 'idempotency_key',
  'is_replay', 'parent_execution_id', 'credentials', 'approved_actions', 'approval_source', 'allowed_tools', 'channel',
  'chat_id', 'reply_to_id', 'unattended', 'cron_authorized', 'inbound_event_id',
];

describe('ToolExecutionContext', () => {
  it('has exactly the seed fields', () => {
    expect(Object.keys(buildContext()).sort()).toEqual([...SEED_FIELDS].sort());
  });

  it('is deeply frozen', () => {
    const ctx = buildContext({ credentials: { token: 't' }, allowed_tools: ['read_file'] });
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(() => { (ctx as { unattended: boolean }).unattended = true; }).toThrow();
    expect(() => { (ctx.credentials as Record<string, string>).token = 'x'; }).toThrow();
    expect(() => { (ctx.allowed_tools as string[]).push('exec'); }).toThrow();
  });

  it('derives idempotency_key from trace, tool, call index and canonical params', () => {
    const a = idempotencyKey('t1', 'write_file', 0, { path: 'a', content: 'b' });
    expect(idempotencyKey('t1', 'write_file', 0, { content: 'b', path: 'a' })).toBe(a);
    expect(idempotencyKey('t1', 'write_file', 1, { path: 'a', content: 'b' })).not.toBe(a);
    expect(idempotencyKey('t2', 'write_file', 0, { path: 'a', content: 'b' })).not.toBe(a);
    expect(idempotencyKey('t1', 'edit_file', 0, { path: 'a', content: 'b' })).not.toBe(a);
    const ctx = buildContext({ trace_id: 't1', tool: 'write_file', call_index: 0, params: { path: 'a', content: 'b' } });
    expect(ctx.idempotency_key).toBe(a);
    expect(contextForCall(ctx, { tool: 'write_file', callIndex: 0, params: { content: 'b', path: 'a' } }).idempotency_key).toBe(a);
  });

  it('keeps the idempotency key and increments attempt_index on retry', () => {
    const ctx = buildContext({ tool: 'x', params: { a: 1 } });
    const retry = nextAttempt(ctx);
    expect(retry.attempt_index).toBe(1);
    expect(retry.idempotency_key).toBe(ctx.idempotency_key);
  });

  it('nested contexts inherit unattended and cron_authorized and can only narrow tools (I5)', () => {
    const parent = buildContext({ unattended: true, cron_authorized: true, allowed_tools: ['read_file', 'write_file'], approval_source: 'human' });
    const child = nestedContext(parent, { allowed_tools: ['write_file', 'exec'] });
    expect(child).toMatchObject({ unattended: true, cron_authorized: true, parent_execution_id: parent.execution_id, approval_source: 'auto' });
    expect(child.allowed_tools).toEqual(['write_file']);
    expect(nestedContext(parent, { allowed_tools: ['exec'] }).allowed_tools).not.toContain('exec');
    expect(nestedContext(parent, { allowed_tools: ['exec'] }).allowed_tools.length).toBeGreaterThan(0);
    const attended = nestedContext(buildContext({ unattended: false, cron_authorized: false }));
    expect(attended).toMatchObject({ unattended: false, cron_authorized: false });
  });

  it('a nested execution replays with its parent, under keys of its own that stay the same across attempts', () => {
    const call = (attempt: number) => contextForCall(buildContext({ trace_id: 'run_1', is_replay: attempt > 1 }), { tool: 'delegate_task', callIndex: 2, params: { prompt: 'p' } });
    const [first, retry] = [nestedContext(call(1)), nestedContext(call(2))];
    expect([first.is_replay, retry.is_replay]).toEqual([false, true]);
    // the retry's sub-agent derives the same keys as the first attempt's, so the ledger recalls its side effects
    const keyIn = (ctx: typeof first) => contextForCall(ctx, { tool: 'message', callIndex: 0, params: { text: 'hi' } }).idempotency_key;
    expect(keyIn(retry)).toBe(keyIn(first));
    // and never the parent's own call with the same tool, index and params
    expect(keyIn(first)).not.toBe(contextForCall(call(1), { tool: 'message', callIndex: 0, params: { text: 'hi' } }).idempotency_key);
    expect(first.trace_id.startsWith('run_1/')).toBe(true);
  });
});
