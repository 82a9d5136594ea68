import { describe, expect, it } from 'vitest';
import { withFaultTracking } from '../../src/queue/queue-faults.ts';
import type { RunQueue } from '../../src/queue/run-queue.ts';

/** A queue whose enqueue refuses while `full` is set, as Redis at maxmemory under noeviction does. */
function queueThatFills() {
  const state = { full: false };
  const queue = {
    backend: 'redis',
    enqueue: async () => { if (state.full) throw new Error('OOM command not allowed when used memory > \'maxmemory\'.'); },
  } as unknown as RunQueue;
  return { state, queue: withFaultTracking(queue) };
}

describe('a queue\'s refusals, as /healthz sees them', () => {
  it('are remembered from the first, with the latest answer, until an enqueue goes through', async () => {
    const { state, queue } = queueThatFills();
    state.full = true;
    await expect(queue.enqueue('run_a')).rejects.toThrow('OOM');
    const first = queue.fault()!;
    await new Promise((r) => setTimeout(r, 5));
    await expect(queue.enqueue('run_b')).rejects.toThrow('OOM');
    expect(queue.fault()).toMatchObject({ since: first.since, message: expect.stringContaining('OOM command not allowed') });
    expect(queue.fault()!.last.getTime()).toBeGreaterThan(first.since.getTime());
    state.full = false;
    await queue.enqueue('run_a');
    expect(queue.fault()).toBeNull();
  });

  it('are cleared by a reconcile pass only when it covered the latest refusal, not just the first', async () => {
    const { state, queue } = queueThatFills();
    state.full = true;
    await expect(queue.enqueue('run_a')).rejects.toThrow();
    const between = new Date(Date.now() + 1);
    await new Promise((r) => setTimeout(r, 5));
    await expect(queue.enqueue('run_b')).rejects.toThrow();
    // a pass that covered runs queued before `between`: run_b, refused after it, may still wait
    queue.clearedBefore(between);
    expect(queue.fault()).not.toBeNull();
    queue.clearedBefore(new Date(Date.now() + 1));
    expect(queue.fault()).toBeNull();
  });
});
