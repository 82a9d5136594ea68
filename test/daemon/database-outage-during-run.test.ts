import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { authorise, crashTestConfig } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { heldTool } from '../support/held-tool.ts';
import { tcpProxy } from '../support/tcp-proxy.ts';
import { until } from '../support/until.ts';
import { startFakeModel } from '../support/fake-model.ts';
import type { Tool } from '../../src/tools/types.ts';

const database = useTestDatabase();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two steps of test_slow (read-only, so no grant is needed): the second one's decision is recorded during the outage. */
const twoSteps = (name: string, retries = 0) => createJob(database().db, {
  name, owner: 'test', created_by: 'test', schedule: '0 0 1 1 *', timezone: 'UTC', tools: [], paused: false,
  payload: { kind: 'steps', steps: [{ tool: 'test_slow', args: {} }, { tool: 'test_slow', args: {} }] },
  ...(retries ? { max_retries: retries, retry_backoff_seconds: 0 } : {}),
});

/** A daemon whose store goes through the proxy on `port`; its queue (BullMQ's PostgreSQL backend) does not. */
function daemonThroughProxy(port: number, tool: Tool, daemon: { lease_seconds: number }) {
  const { url, schema } = database();
  const config = defaultConfig({ ...crashTestConfig(`test-outage-${randomBytes(3).toString('hex')}`), daemon: { ...daemon, tick_seconds: 0.5, reconcile_seconds: 60 } });
  return startDaemon(config, {
    logger: silentLogger, database: { url: url.replace(':5432', `:${port}`), schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, extraTools: [tool],
  });
}

describe('PostgreSQL refusing connections for a while in the middle of a run', () => {
  it.each([
    ['read-only steps', false],
    ['granted write steps, whose effects go to the ledger and whose grant is checked again', true],
  ] as const)('rides out an outage of a few seconds (%s): the run goes on, succeeds, and each step\'s decision is recorded before it runs', async (_what, granted) => {
    const { db } = database();
    const proxy = await tcpProxy(5432);
    const held = heldTool(granted ? 'write' : 'read_only');
    const job = await twoSteps(`short-outage-${granted}`);
    if (granted) await authorise(db, job);
    const daemon = await daemonThroughProxy(proxy.port, held.tool, { lease_seconds: 60 });
    try {
      const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
      await held.started;
      await proxy.cut();
      // the pool sees its connections closed; from now on every connection is refused, as while a server restarts
      await sleep(500);
      held.release(); // the second step's decision now has to be recorded while nothing answers
      await sleep(6_000);
      await proxy.restore();
      await until('the run ending', async () => (await getRun(db, run.id))!.state !== 'running', 40_000);
      expect((await getRun(db, run.id))!).toMatchObject({ state: 'succeeded', attempt: 1 });
      expect(held.calls()).toBe(2);
      // I8: two allow decisions, each before its call's effect, and the outcome recorded once
      const records = (await listAudit(db, { run_id: run.id, order: 'asc' })).map((a) => `${a.kind}:${a.outcome}`);
      expect(records.filter((r) => r.startsWith('gate.decision') || r.startsWith('run.decision'))).toHaveLength(2);
      expect(records.filter((r) => r.startsWith('run.state'))).toEqual(['run.state:succeeded']);
    } finally {
      await daemon.stop();
      await proxy.close();
    }
  }, 90_000);

  it('an agent run whose model answers while the database is away keeps its answer: the transcript waits for the lease, not a fixed 30 s', async () => {
    const { db, url, schema } = database();
    const proxy = await tcpProxy(5432);
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    const model = await startFakeModel(() => ({ content: 'the report is done', until: answered }));
    const job = await createJob(db, {
      name: 'agent-outage', owner: 'test', created_by: 'test', schedule: '0 0 1 1 *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'agent', prompt: 'write the report' },
    });
    // a 90 s lease stops the run after 60 s of failed renewals; the outage ends well before, past the old 30 s of tries
    const config = defaultConfig({
      ...crashTestConfig(`test-outage-${randomBytes(3).toString('hex')}`),
      daemon: { lease_seconds: 90, tick_seconds: 0.5, reconcile_seconds: 60 },
      model: { base_url: model.url, name: 'scripted', api_key: 'sk-outage-test-1234' },
    });
    const daemon = await startDaemon(config, {
      logger: silentLogger, database: { url: url.replace(':5432', `:${proxy.port}`), schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false,
    });
    try {
      const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
      await until('the model being asked', () => model.requests.length > 0, 30_000);
      await proxy.cut();
      await sleep(500);
      answer(); // the loop ends now, and its transcript has to be saved while nothing answers
      await sleep(36_000);
      await proxy.restore();
      await until('the run ending', async () => (await getRun(db, run.id))!.state !== 'running', 60_000);
      const ended = (await getRun(db, run.id))!;
      expect(ended).toMatchObject({ state: 'succeeded', attempt: 1 });
      expect((ended.output as { agent: { final: string; transcript_id: string | null } }).agent).toMatchObject({ final: 'the report is done', transcript_id: expect.any(String) });
    } finally {
      await daemon.stop();
      await proxy.close();
      await model.close();
    }
  }, 150_000);

  it('an outage longer than the lease allows settles the run as soon as the database answers: a retried failure naming the unreachable database', async () => {
    const { db } = database();
    const proxy = await tcpProxy(5432);
    const held = heldTool();
    const job = await twoSteps('long-outage', 1);
    // a 6 s lease: renewals failing for 4 s stop the run, long before the outage ends; no reconcile pass in between
    // (not shorter: a renewal late by event-loop lag on a loaded machine would stop it before the outage)
    const daemon = await daemonThroughProxy(proxy.port, held.tool, { lease_seconds: 6 });
    try {
      const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
      await held.started;
      await proxy.cut();
      held.release();
      await sleep(12_000);
      await proxy.restore();
      // retried at once (backoff 0), and the second attempt runs both steps
      await expect.poll(async () => (await getRun(db, run.id))!.state, { timeout: 45_000, interval: 200 }).toBe('succeeded');
      expect((await getRun(db, run.id))!).toMatchObject({ state: 'succeeded', attempt: 2 });
      expect(held.most(), 'never two attempts at once').toBe(1);
      const states = await listAudit(db, { run_id: run.id, kind: 'run.state', order: 'asc' });
      expect(states.map((a) => `${a.actor}:${a.outcome}`)).toEqual(['daemon:retrying', 'daemon:succeeded']);
      const reason = states[0]!.reason ?? '';
      expect(reason).toContain('the database was unreachable');
      expect(reason).toContain('ECONNREFUSED');
      expect(reason).not.toMatch(/Failed query|select /i);
    } finally {
      await daemon.stop();
      await proxy.close();
    }
  }, 90_000);
});
