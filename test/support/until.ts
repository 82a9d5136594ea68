import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until `ready` holds, failing after `timeoutMs` with what did not happen and `detail()` (a log's tail)
 * (rule test.poll.shared: the one poll loop of the tests; a test body may use expect.poll on the state itself
 * instead). Not expect.poll, which refuses to run in hooks (beforeAll); not vi.waitFor, which retries a check
 * that throws: here a throw fails at once (a child that exited will not become ready).
 */
export async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 30_000, intervalMs = 50, detail?: () => string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await ready())) {
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s${detail ? `\n${detail()}` : ''}`);
    await sleep(intervalMs);
  }
}
