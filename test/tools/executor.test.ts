import { describe, expect, it } from 'vitest';
import { buildContext, type ToolExecutionContext } from '../../src/tools/context.ts';
import { MemoryEffectLedger } from '../../src/tools/effects.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { fail, ok, type Tool, type ToolResult } from '../../src/tools/types.ts';

function tool(over: Partial<Tool> & { run: (p: Record<string, unknown>, ctx: ToolExecutionContext, signal: AbortSignal) => Promise<ToolResult> }): Tool {
  return {
    name: 'probe', description: 'test tool', timeoutSeconds: 30, maxRetries: 0, streamCapable: false, capabilities: [], riskLevel: 'write',
    parameters: { type: 'object', properties: { n: { type: 'integer' }, name: { type: 'string' } }, required: ['name'], additionalProperties: false },
    isReady: () => true, readinessDetail: () => [true, 'ready'],
    execute: (p, ctx, opts) => over.run(p, ctx!, opts.signal),
    ...over,
  };
}

describe('tool executor', () => {
  it('refuses bad arguments with a validation error naming the field, without executing', async () => {
    let ran = false;
    const t = tool({ run: async () => { ran = true; return ok(); } });
    const missing = await executeTool(t, {}, buildContext());
    expect(missing).toMatchObject({ success: false, errorKind: 'validation' });
    expect(missing.error).toContain('name: is required');
    const wrong = await executeTool(t, { name: 'a', n: 'seven' }, buildContext());
    expect(wrong.error).toContain('n: must be integer');
    const extra = await executeTool(t, { name: 'a', bogus: 1 }, buildContext());
    expect(extra.error).toContain('bogus: is not a known parameter');
    expect(ran).toBe(false);
  });

  it('aborts the tool at timeoutSeconds and reports a timeout', async () => {
    let aborted = false;
    const t = tool({ timeoutSeconds: 0.05, run: (_p, _c, signal) => new Promise((resolve) => signal.addEventListener('abort', () => { aborted = true; resolve(fail('business', 'stopped')); })) });
    const r = await executeTool(t, { name: 'a' }, buildContext());
    expect(aborted).toBe(true);
    expect(r.errorKind).toBe('timeout');
  });

  it('does not start a tool whose run was cancelled before the call reached it', async () => {
    let ran = false;
    const t = tool({ run: async () => { ran = true; return ok(); } });
    const cancelled = new AbortController();
    cancelled.abort(new Error('lease lost'));
    const r = await executeTool(t, { name: 'a' }, buildContext(), { signal: cancelled.signal });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout', error: 'probe was not started: its run was cancelled (lease lost)' });
    expect(ran).toBe(false);
  });

  it('stops waiting for a tool that ignores its signal (hard stop)', async () => {
    const t = tool({ timeoutSeconds: 0.05, run: () => new Promise(() => {}) });
    const r = await executeTool(t, { name: 'a' }, buildContext(), { graceMs: 20 });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
  });

  it('a tool with effects that does not stop is not retried: its timeout is effectful, and recorded so a replay returns it', async () => {
    let started = 0;
    const late: Promise<void>[] = [];
    // the effect lands only when the test lets it, after the timeout's result came back: never before, however the timers run
    let landLate!: () => void;
    const landed = new Promise<void>((r) => { landLate = r; });
    const t = tool({
      timeoutSeconds: 0.05, maxRetries: 2,
      run: () => { started++; const done = landed.then(() => ok('written late')); late.push(done.then(() => {})); return done; },
    });
    const ledger = new MemoryEffectLedger();
    const ctx = buildContext({ tool: 'probe', params: { name: 'a' } });
    const r = await executeTool(t, { name: 'a' }, ctx, { graceMs: 20, ledger });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout', effectful: true });
    expect(r.error).toContain('may still happen');
    landLate();
    await Promise.all(late);
    expect(started).toBe(1);
    expect(await executeTool(t, { name: 'a' }, { ...ctx, is_replay: true }, { graceMs: 20, ledger })).toEqual(r);
    expect(started).toBe(1);
  });

  it('a read-only tool that does not stop is retried as any timeout is', async () => {
    let started = 0;
    const t = tool({ riskLevel: 'read_only', timeoutSeconds: 0.05, maxRetries: 1, run: () => { started++; return new Promise(() => {}); } });
    const r = await executeTool(t, { name: 'a' }, buildContext(), { graceMs: 20 });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(r.effectful).toBeUndefined();
    expect(started).toBe(2);
  });

  it('retries internal and timeout failures with the same idempotency key and attempt_index + 1', async () => {
    const seen: ToolExecutionContext[] = [];
    const t = tool({ maxRetries: 2, run: async (_p, ctx) => { seen.push(ctx); return seen.length < 3 ? fail('internal', 'flaky') : ok('done'); } });
    const ctx = buildContext({ tool: 'probe', params: { name: 'a' } });
    expect(await executeTool(t, { name: 'a' }, ctx)).toEqual({ success: true, output: 'done' });
    expect(seen.map((c) => c.attempt_index)).toEqual([0, 1, 2]);
    expect(new Set(seen.map((c) => c.idempotency_key))).toEqual(new Set([ctx.idempotency_key]));
  });

  it.each(['business', 'validation', 'denied', 'unavailable'] as const)('does not retry %s failures', async (kind) => {
    let calls = 0;
    const t = tool({ maxRetries: 3, run: async () => { calls++; return fail(kind, 'no'); } });
    await executeTool(t, { name: 'a' }, buildContext());
    expect(calls).toBe(1);
  });

  it('keeps a failure that happened after the effect started recorded as one when the call was cancelled, so a replay does not repeat it', async () => {
    const cancel = new AbortController();
    // the command ran and failed just as the run was cancelled
    const t = tool({ run: async () => { cancel.abort(new Error('shutdown')); return { ...fail('business', 'exited with code 1'), effectful: true }; } });
    const ledger = new MemoryEffectLedger();
    const ctx = buildContext({ tool: 'probe', params: { name: 'a' } });
    const r = await executeTool(t, { name: 'a' }, ctx, { signal: cancel.signal, ledger });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout', effectful: true });
    expect(await ledger.recall(ctx.idempotency_key)).toMatchObject({ effectful: true });
  });

  it('does not retry a timeout after the effect started', async () => {
    let calls = 0;
    const t = tool({ maxRetries: 3, run: async () => { calls++; return { ...fail('timeout', 'killed at deadline'), effectful: true }; } });
    await executeTool(t, { name: 'a' }, buildContext());
    expect(calls).toBe(1);
  });

  it('turns a thrown error into an internal failure with credentials redacted', async () => {
    const t = tool({ run: async () => { throw new Error('connect to postgres://admin:hunter2@db failed'); } });
    const r = await executeTool(t, { name: 'a' }, buildContext());
    expect(r.errorKind).toBe('internal');
    expect(r.error).not.toContain('hunter2');
  });

  it('a file system error with a five-letter code (EPERM) is no database error', async () => {
    const t = tool({ run: async () => { throw Object.assign(new Error("EPERM: operation not permitted, open '/ws/x'"), { code: 'EPERM', errno: -1 }); } });
    const r = await executeTool(t, { name: 'a' }, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'internal' });
    expect(r.error).toBe("probe failed: EPERM: operation not permitted, open '/ws/x'");
    // nor is one that happens to look like PostgreSQL's "cannot store" codes
    const lookalike = tool({ run: async () => { throw Object.assign(new Error('odd'), { code: '22P05' }); } });
    expect(await executeTool(lookalike, { name: 'a' }, buildContext())).toMatchObject({ errorKind: 'internal', error: 'probe failed: odd' });
  });

  it('passes is_replay through to the tool', async () => {
    let replay: boolean | undefined;
    const t = tool({ run: async (_p, ctx) => { replay = ctx.is_replay; return ok(); } });
    await executeTool(t, { name: 'a' }, buildContext({ is_replay: true }));
    expect(replay).toBe(true);
  });
});

describe('replay', () => {
  it('returns the recorded result of a side-effecting call on replay instead of repeating it', async () => {
    const { MemoryEffectLedger } = await import('../../src/tools/effects.ts');
    const ledger = new MemoryEffectLedger();
    let effects = 0;
    const t = tool({ run: async () => { effects++; return ok({ sent: effects }); } });
    const ctx = buildContext({ tool: 'probe', params: { name: 'a' } });
    expect(await executeTool(t, { name: 'a' }, ctx, { ledger })).toEqual({ success: true, output: { sent: 1 } });
    const replay = buildContext({ trace_id: ctx.trace_id, tool: 'probe', params: { name: 'a' }, is_replay: true });
    expect(await executeTool(t, { name: 'a' }, replay, { ledger })).toEqual({ success: true, output: { sent: 1 } });
    expect(effects).toBe(1);
  });
});
