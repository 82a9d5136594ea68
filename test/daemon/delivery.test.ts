import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { authorise } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { useHookServer } from '../support/fake-internet.ts';

const database = useTestDatabase();
const hook = useHookServer();
afterEach(() => hook.server.reset());
const net = hook.net;
// a workspace of its own: the default one (<data_dir>/workspace, relative) exists only once some other test made it
const config = defaultConfig({ tools: { workspace: mkdtempSync(join(tmpdir(), 'echo-delivery-')) }, notify: { targets: { ops: { url: 'http://hooks.test/runs' } } } });

async function runDelivered(authorised: boolean, shutdown?: AbortSignal) {
  const db = database().db;
  const job = await createJob(db, {
    name: 'delivered', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [],
    payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, delivery: { notify: 'ops' },
  });
  if (authorised) await authorise(db, job);
  const run = (await manualRun({ db }, job.id, 'test'))!;
  const base = { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1', net: net(), ...(shutdown ? { shutdown } : {}) };
  await executeRun({ ...base, agent: daemonAgentRuntime(base) }, run.id);
  return { job, run: (await getRun(db, run.id))!, records: await listAudit(db, { run_id: run.id, kind: 'run.delivery', order: 'asc' }) };
}

describe('delivery: where a job\'s results go', () => {
  it('posts a finished authorised run\'s outcome to the job\'s notify target and records it', async () => {
    const { job, run, records } = await runDelivered(true);
    expect(run.state).toBe('succeeded');
    expect(hook.server.requests).toHaveLength(1);
    expect(JSON.parse(hook.server.requests[0]!.body.toString())).toMatchObject({
      job: { id: job.id, name: 'delivered' }, run: { id: run.id, state: 'succeeded', trigger: 'manual' },
      summary: { kind: 'steps', steps: [{ tool: 'list_dir', decision: 'allow', success: true }] },
    });
    expect(records).toEqual([expect.objectContaining({ rule: 'delivery.posting', outcome: 'posting' }), expect.objectContaining({ rule: 'delivery.sent', outcome: 'sent' })]);
  });

  it('records the delivery before the target hears of it, so a crash mid-post still leaves a trace', async () => {
    let seenByTarget: (string | null)[] | null = null;
    hook.server.answer(async (q, r) => {
      const runId = (JSON.parse(q.body.toString()) as { run: { id: string } }).run.id;
      seenByTarget = (await listAudit(database().db, { run_id: runId, kind: 'run.delivery' })).map((a) => a.rule);
      r.writeHead(204).end();
    });
    await runDelivered(true);
    expect(seenByTarget).toEqual(['delivery.posting']);
  });

  it('sends nothing for a run without a live human grant, and says why', async () => {
    const { records } = await runDelivered(false);
    expect(hook.server.connections).toBe(0);
    expect(records).toEqual([expect.objectContaining({ rule: 'delivery.not_authorized' })]);
  });

  it('a target that fails is recorded; the run\'s own state stands', async () => {
    hook.server.answer((_q, r) => r.writeHead(503).end());
    const { run, records } = await runDelivered(true);
    expect(run.state).toBe('succeeded');
    expect(records).toEqual([expect.objectContaining({ rule: 'delivery.posting' }), expect.objectContaining({ rule: 'delivery.failed', reason: expect.stringContaining('HTTP 503') })]);
  });

  it('a run finishing while the daemon stops posts nothing and says so, instead of a failure that was not one', async () => {
    const stopping = new AbortController();
    stopping.abort(new Error('shutdown'));
    const { records } = await runDelivered(true, stopping.signal);
    expect(hook.server.connections).toBe(0);
    expect(records).toEqual([expect.objectContaining({ rule: 'delivery.shutdown' })]);
  });
});
