import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { NewJob } from '../../src/store/jobs.ts';
import { createJob } from '../../src/store/jobs.ts';
import { listAudit } from '../../src/store/audit.ts';
import { getRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';
import { startRawEndpoint } from '../agent/raw-endpoint.ts';

const database = useTestDatabase();
const KEY = 'sk-daemon-model-errors-000000000';

// one endpoint answers per model name the way real ones do: an unknown model is a 404, an overloaded one a 503
const notFound = await startRawEndpoint(() => ({ status: 404, body: JSON.stringify({ error: { message: 'The model `nope` does not exist' } }) }));
const overloaded = await startRawEndpoint(() => ({ status: 503, body: JSON.stringify({ error: { message: 'overloaded' } }) }));
afterAll(async () => {
  await notFound.close();
  await overloaded.close();
});

const job = (over: Partial<NewJob>) => createJob(database().db, {
  name: 'model-errors', owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', overlap_policy: 'allow',
  payload: { kind: 'agent', prompt: 'hello' }, tools: [], paused: false, max_retries: 2, retry_backoff_seconds: 1, ...over,
});

async function runOnce(jobId: string, baseUrl: string) {
  const db = database().db;
  const config = defaultConfig({ model: { base_url: baseUrl, name: 'default-model', api_key: KEY, max_retries: 0 } });
  const run = (await manualRun({ db }, jobId, 'test'))!;
  const result = await executeRun({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' }, run.id);
  return { result, run: (await getRun(db, run.id))! };
}

describe('a daemon run whose model endpoint fails', () => {
  it('is not retried when the endpoint refuses its model (404): the error names the model and the endpoint', async () => {
    const j = await job({ payload: { kind: 'agent', prompt: 'hello', model: 'nope' } });
    const { result, run } = await runOnce(j.id, notFound.url);
    expect(result.kind).not.toBe('retrying');
    expect(run.state).toBe('failed');
    expect(run.error).toMatch(/model "nope"/);
    expect(run.error).toContain(`127.0.0.1:${notFound.port}/v1`);
    expect(run.error).toMatch(/HTTP 404/);
    expect(run.error).not.toContain(KEY);
    const states = await listAudit(database().db, { run_id: run.id, kind: 'run.state' });
    expect(states.map((s) => s.outcome)).toEqual(['failed']);
  });

  it('is retried when the endpoint is overloaded (503), with the job\'s retries', async () => {
    const j = await job({});
    const { result, run } = await runOnce(j.id, overloaded.url);
    expect(result.kind).toBe('retrying');
    expect(run.error).toMatch(/HTTP 503/);
  });

  it('that answered without choices is not retried: the same endpoint answers the same way', async () => {
    const empty = await startRawEndpoint(() => ({ body: JSON.stringify({ choices: [] }) }));
    try {
      const j = await job({});
      const { result, run } = await runOnce(j.id, empty.url);
      expect(result.kind).not.toBe('retrying');
      expect(run.state).toBe('failed');
      expect(run.error).toMatch(/answered without choices/);
    } finally {
      await empty.close();
    }
  });
});
