import { describe, expect, it } from 'vitest';
import { beginStop } from '../../src/daemon/daemon-stop.ts';
import { silentLogger } from '../../src/log/logger.ts';

const never = () => new Promise<void>(() => {});
const stopWith = (steps: Parameters<typeof beginStop>[0]['steps'], failure: string | null = null) => beginStop({
  logger: silentLogger, stopTimeoutSeconds: 1, worker: null, shutdown: new AbortController(), loops: [], steps, failure: () => failure,
}).done;

describe('the steps of a graceful stop', () => {
  it('a server stop that overruns its own limit is a stop not made cleanly: the daemon must not exit 0 on it', async () => {
    const stopped = await stopWith([['closing the HTTP listener', async () => {}], ['stopping the embedded PostgreSQL', never, { limitMs: 50, failsStop: true }]]);
    expect(stopped.failure).toBe('stopping the embedded PostgreSQL did not end within 50 ms');
  });

  it('another step that overruns is gone past, and the stop is still clean', async () => {
    expect((await stopWith([['closing the queue', never, { limitMs: 50 }]])).failure).toBeNull();
  });

  it('the server\'s own report of an abnormal shutdown comes first', async () => {
    const stopped = await stopWith([['stopping the embedded PostgreSQL', never, { limitMs: 50, failsStop: true }]], 'did not shut down cleanly (code 1)');
    expect(stopped.failure).toBe('did not shut down cleanly (code 1)');
  });
});
