import { describe, expect, it } from 'vitest';
import { LineMatcher, PatternTooSlow, idleMatchers } from '../../src/tools/regex-sandbox.ts';

// search_files runs a model's pattern in a worker; starting one costs tens of milliseconds of CPU per call,
// so a worker that finished in time serves the next pattern, and one that did not is never seen again.
describe('the regex sandbox keeps finished workers and drops stuck ones', () => {
  it('a pattern that finished leaves its worker for the next one, which sees only its own pattern', async () => {
    const first = new LineMatcher('alpha', '', 5_000);
    expect(await first.matchingLines('alpha\nbeta\nalpha beta')).toEqual([[0, 'alpha'], [2, 'alpha beta']]);
    await first.close();
    const kept = idleMatchers();
    expect(kept).toBeGreaterThanOrEqual(1);
    const second = new LineMatcher('^beta$', 'i', 5_000);
    expect(idleMatchers()).toBe(kept);
    expect(await second.matchingLines('alpha\nBETA\nalpha beta')).toEqual([[1, 'BETA']]);
    expect(idleMatchers()).toBe(kept - 1);
    await second.close();
    expect(idleMatchers()).toBe(kept);
  });

  it('a pattern over its budget is stopped and its worker never returns to the pool', async () => {
    const before = idleMatchers();
    const slow = new LineMatcher('^(a+)+$', '', 200);
    await expect(slow.matchingLines(`${'a'.repeat(40)}!`)).rejects.toBeInstanceOf(PatternTooSlow);
    await slow.close();
    // it took an idle worker (or made one) and gave nothing back
    expect(idleMatchers()).toBe(Math.max(0, before - 1));
    const next = new LineMatcher('x', '', 5_000);
    expect(await next.matchingLines('x\ny')).toEqual([[0, 'x']]);
    await next.close();
  });

  it('a cancelled search drops its worker too', async () => {
    const before = idleMatchers();
    const controller = new AbortController();
    const slow = new LineMatcher('^(a+)+$', '', 60_000);
    const pending = slow.matchingLines(`${'a'.repeat(40)}!`, controller.signal);
    setTimeout(() => controller.abort(new Error('run stopped')), 100);
    await expect(pending).rejects.toThrow('run stopped');
    await slow.close();
    expect(idleMatchers()).toBe(Math.max(0, before - 1));
  });
});
