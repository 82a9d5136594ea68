import { describe, expect, it } from 'vitest';
import { OVERLAP_POLICIES, OVERLAP_RULES, decideOverlap, type OverlapAction, type OverlapPolicy } from '../../src/scheduler/overlap.ts';

describe('decideOverlap', () => {
  const table: ReadonlyArray<[OverlapPolicy, number, number, OverlapAction, string]> = [
    // policy, running, queued, action, rule
    ['skip', 0, 0, 'start', 'overlap.idle'],
    ['skip', 1, 0, 'skip', 'overlap.skip.busy'],
    ['skip', 0, 1, 'skip', 'overlap.skip.busy'],
    ['skip', 3, 2, 'skip', 'overlap.skip.busy'],
    ['buffer_one', 0, 0, 'start', 'overlap.idle'],
    ['buffer_one', 1, 0, 'queue', 'overlap.buffer_one.wait'],
    ['buffer_one', 0, 1, 'queue', 'overlap.buffer_one.wait'],
    ['buffer_one', 1, 1, 'skip', 'overlap.buffer_one.full'],
    ['buffer_one', 2, 0, 'skip', 'overlap.buffer_one.full'],
    ['allow', 0, 0, 'start', 'overlap.allow'],
    ['allow', 5, 5, 'start', 'overlap.allow'],
    ['cancel_other', 0, 0, 'start', 'overlap.idle'],
    ['cancel_other', 1, 0, 'cancel_running_then_start', 'overlap.cancel_other.replace'],
    ['cancel_other', 1, 1, 'cancel_running_then_start', 'overlap.cancel_other.replace'],
    ['cancel_other', 0, 1, 'cancel_running_then_start', 'overlap.cancel_other.replace'],
  ];

  it.each(table)('%s with %i running, %i queued: %s (%s)', (policy, running, queued, action, rule) => {
    const decision = decideOverlap(policy, { running, queued });
    expect(decision).toEqual({ action, rule, reason: OVERLAP_RULES.find((r) => r.id === rule)!.reason });
  });

  it('has unique rule ids, each with a reason, and every rule is reachable from the table above', () => {
    const ids = OVERLAP_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of OVERLAP_RULES) expect(r.reason.length).toBeGreaterThan(20);
    expect(new Set(table.map((row) => row[4]))).toEqual(new Set(ids));
  });

  it('decides every policy for any state (the table has no gaps)', () => {
    for (const policy of OVERLAP_POLICIES) for (let running = 0; running < 4; running++) for (let queued = 0; queued < 4; queued++) {
      expect(() => decideOverlap(policy, { running, queued })).not.toThrow();
    }
  });

  it('refuses an unknown policy and impossible counts', () => {
    expect(() => decideOverlap('queue_all' as OverlapPolicy, { running: 0, queued: 0 })).toThrow('unknown overlap policy "queue_all"');
    expect(() => decideOverlap('skip', { running: -1, queued: 0 })).toThrow('overlap state running must be a non-negative integer');
    expect(() => decideOverlap('skip', { running: 0, queued: 1.5 })).toThrow('overlap state queued must be a non-negative integer');
  });
});
