import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.ts';
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
import { transcriptOfRun } from '../../src/store/transcripts.ts';
import { redactText } from '../../src/util/redact.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

const database = useTestDatabase();
// a key in no shape the patterns know: only the configuration says it is one
const KEY = 'plain7c0ffee9d00dle4242';
const workspace = mkdtempSync(join(tmpdir(), 'echo-config-secrets-'));
writeFileSync(join(workspace, 'env.txt'), `the service key is ${KEY}\n`);
let model: Awaited<ReturnType<typeof startFakeModel>>;
beforeAll(async () => {
  model = await startFakeModel((_b, n) => (n === 0 ? { tool_calls: [{ name: 'read_file', arguments: { path: 'env.txt' } }] } : { content: `I found ${KEY}` }));
});
afterAll(() => model.close());

describe('a credential from the configuration, in no known shape', () => {
  it('is cut out of what the model is sent, the transcript, the run output and the audit log (I11)', async () => {
    const db = database().db;
    const config = defaultConfig({ tools: { workspace }, model: { base_url: model.url, name: 'scripted', api_key: KEY } });
    const job = await createJob(db, {
      name: 'reads-the-key', owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'agent', prompt: 'look around' },
    });
    const queued = (await manualRun({ db }, job.id, 'test'))!;
    const deps = { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' };
    await executeRun({ ...deps, agent: daemonAgentRuntime(deps) }, queued.id);
    const run = (await getRun(db, queued.id))!;
    expect(run.state).toBe('succeeded');
    // the key goes to the endpoint in its Authorization header, and nowhere else
    expect(model.headers[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(model.requests)).not.toContain(KEY);
    expect(JSON.stringify(model.requests)).toContain('the service key is [REDACTED]');
    expect(JSON.stringify(await transcriptOfRun(db, run.id))).not.toContain(KEY);
    expect(JSON.stringify(run.output)).not.toContain(KEY);
    expect(JSON.stringify(await listAudit(db, { run_id: run.id }))).not.toContain(KEY);
  });

  it('is masked in any text once a configuration holding it is loaded, but a short one does not eat ordinary words', () => {
    defaultConfig({ services: { vision: { base_url: 'https://vision.example/v1', api_key: 'vis-0123456789' } }, notify: { targets: { ops: { url: 'https://hooks.example/ops', headers: { 'X-Hook': 'only' } } } } });
    expect(redactText('upstream said: unknown key vis-0123456789 (401)')).toBe('upstream said: unknown key [REDACTED] (401)');
    expect(redactText('the only way')).toBe('the only way');
    parseConfigText('database:\n  url: postgres://app:db-pass-from-yaml@db:5432/x\n');
    expect(redactText('FATAL: password authentication failed (db-pass-from-yaml)')).toBe('FATAL: password authentication failed ([REDACTED])');
  });
});
