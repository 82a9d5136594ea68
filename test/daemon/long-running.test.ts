import { randomBytes } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { deliverOutcome } from '../../src/daemon/delivery.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { directAppend } from '../../src/store/audit-writer.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { linkedSignal } from '../../src/util/linked-signal.ts';
import type { Tool } from '../../src/tools/types.ts';
import { crashTestConfig, slowJob } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { useHookServer } from '../support/fake-internet.ts';

// A daemon runs for weeks: what each run, delivery or fetch hooks onto something that lives as long as the
// process must come off again (the soak bench, `npm run bench -- soak`, found these).
const database = useTestDatabase();
const hook = useHookServer();

/** Everything that holds on to `signal` for its abort: listeners, and the links Node's AbortSignal.any keeps. */
function holdsOn(signal: AbortSignal): number {
  const dependants = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
  const links = dependants ? ((signal as unknown as Record<symbol, Set<unknown> | undefined>)[dependants]?.size ?? 0) : 0;
  return links + getEventListeners(signal, 'abort').length;
}

function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('a daemon left running holds no more than the work in hand', () => {
  it('deliveries made under the daemon\'s shutdown signal leave nothing attached to it', async () => {
    const db = database().db;
    const config = defaultConfig({ tools: { workspace: mkdtempSync(join(tmpdir(), 'echo-long-')) }, notify: { targets: { ops: { url: 'http://hooks.test/runs' } } } });
    const net = hook.net();
    const job = await createJob(db, {
      name: 'delivered', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [],
      payload: { kind: 'steps', steps: [] }, delivery: { notify: 'ops' },
    });
    const run = (await getRun(db, (await manualRun({ db }, job.id, 'test'))!.id))!;
    const shutdown = new AbortController();
    for (let i = 0; i < 30; i++) {
      const sent = await deliverOutcome({ config, audit: directAppend(db), net }, job, run, { output: { steps: [] } } as never, true, shutdown.signal);
      expect(sent?.rule).toBe('delivery.sent');
    }
    collectGarbage();
    expect(holdsOn(shutdown.signal)).toBe(0);
  });

  it('a linked signal follows its parent and its deadline, and lets go of the parent once disposed', async () => {
    const parent = new AbortController();
    const done = linkedSignal([parent.signal], 60_000);
    expect(holdsOn(parent.signal)).toBe(1);
    done.dispose();
    expect(holdsOn(parent.signal)).toBe(0);
    const stopped = linkedSignal([parent.signal], 60_000);
    parent.abort(new Error('shutdown'));
    expect(stopped.signal.reason).toEqual(new Error('shutdown'));
    expect(stopped.timedOut()).toBe(false);
    const late = linkedSignal([new AbortController().signal], 10);
    await new Promise((r) => late.signal.addEventListener('abort', r));
    expect(late.timedOut()).toBe(true);
    expect((late.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('more runs at once than Node\'s default of ten listeners give no leak warning', async () => {
    const { db, url, schema } = database();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    // every call waits until let go, so twelve runs are in flight at once, each listening for the stop
    let started = 0;
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    const tool: Tool = {
      name: 'test_slow', description: 'waits until released', parameters: { type: 'object' }, timeoutSeconds: 60, maxRetries: 0, streamCapable: false,
      capabilities: [], riskLevel: 'read_only', isReady: () => true, readinessDetail: () => [true, 'ready'],
      async execute() { started++; await released; return { success: true, output: 'ok' }; },
    };
    const config = defaultConfig({ ...crashTestConfig(`test-long-${randomBytes(3).toString('hex')}`), daemon: { concurrency: 12, tick_seconds: 0.2, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, extraTools: [tool] });
    try {
      for (let i = 0; i < 12; i++) await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, (await slowJob(db, `held-${i}`)).id, 'test');
      for (let waited = 0; started < 12 && waited < 30_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
      expect(started).toBe(12);
      release();
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      release();
      await daemon.stop();
      process.off('warning', onWarning);
    }
  }, 60_000);

  it('a stopped daemon is freed: its metrics no longer hold its queue, pool and tools', async () => {
    const { url, schema } = database();
    const config = defaultConfig({ queue: { prefix: `test-long-${randomBytes(3).toString('hex')}` } });
    let daemon: Awaited<ReturnType<typeof startDaemon>> | null = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q2` }, http: false });
    const queue = new WeakRef(daemon.queue);
    await daemon.stop();
    daemon = null;
    for (let i = 0; i < 5 && queue.deref(); i++) {
      await new Promise((r) => setTimeout(r, 50));
      collectGarbage();
    }
    expect(queue.deref()).toBeUndefined();
  }, 60_000);
});
