import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { getRun } from '../../src/store/runs.ts';
import { crashTestConfig, slowJob } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { heldTool } from '../support/held-tool.ts';
import { tcpProxy } from '../support/tcp-proxy.ts';

const database = useTestDatabase();

describe('PostgreSQL unreachable for a few seconds as a run finishes', () => {
  it('the run still ends with its own outcome once the database is back, not interrupted at lease expiry', async () => {
    const { db, url, schema } = database();
    const proxy = await tcpProxy(5432);
    const held = heldTool();
    const job = await slowJob(db, 'outage', { authorised: false });
    const config = defaultConfig({ ...crashTestConfig(`test-outage-${randomBytes(3).toString('hex')}`), daemon: { lease_seconds: 60, tick_seconds: 0.5, reconcile_seconds: 60 } });
    // the store goes through the proxy; the queue (BullMQ's PostgreSQL backend) does not, so only the store's writes fail
    const viaProxy = url.replace(':5432', `:${proxy.port}`);
    const daemon = await startDaemon(config, {
      logger: silentLogger, database: { url: viaProxy, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, extraTools: [held.tool],
    });
    try {
      const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
      await held.started;
      await proxy.cut();
      held.release();
      await new Promise((r) => setTimeout(r, 3_000));
      await proxy.restore();
      const start = Date.now();
      let state = '';
      while (Date.now() - start < 20_000) {
        state = (await getRun(db, run.id))!.state;
        if (state !== 'running') break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(state).toBe('succeeded');
    } finally {
      await daemon.stop();
      await proxy.close();
    }
  }, 60_000);

  it('a finish that committed but whose answer was lost is recorded once, as the run\'s own outcome', async () => {
    const { db, url, schema } = database();
    const proxy = await tcpProxy(5432);
    const held = heldTool();
    const job = await slowJob(db, 'lost-answer', { authorised: false });
    const config = defaultConfig({ ...crashTestConfig(`test-lostans-${randomBytes(3).toString('hex')}`), daemon: { lease_seconds: 60, tick_seconds: 0.5, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, {
      logger: silentLogger, database: { url: url.replace(':5432', `:${proxy.port}`), schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, extraTools: [held.tool],
    });
    try {
      const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
      await held.started;
      proxy.holdRepliesAfter('echo_finish_run');
      held.release();
      const seen = async () => (await getRun(db, run.id))!.state;
      for (let i = 0; i < 100 && (await seen()) === 'running'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await seen()).toBe('succeeded'); // committed, its answer still held
      proxy.drop();
      const settled = async () => (await listAudit(db, { run_id: run.id, order: 'asc' })).filter((a) => a.kind !== 'run.decision').map((a) => `${a.kind}:${a.outcome}`);
      // what the daemon does once its connection broke: nothing more is expected, so wait a little and look
      await new Promise((r) => setTimeout(r, 2_000));
      expect(await settled()).toEqual(expect.arrayContaining(['run.state:succeeded']));
      expect((await settled()).filter((k) => k.startsWith('run.state:succeeded') || k.startsWith('run.outcome_discarded'))).toEqual(['run.state:succeeded']);
    } finally {
      await daemon.stop();
      await proxy.close();
    }
  }, 60_000);
});
