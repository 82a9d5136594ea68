import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import type { Lookup } from '../../src/guard/ssrf/check-url.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { authorise } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';

// A nightly job's web_fetch met a resolver that did not answer (EAI_AGAIN): the run was refused as flagged,
// counted toward max_denials_per_run and never retried, while a name that does not exist is rightly refused.
const database = useTestDatabase();

const failing = (code: string): Lookup => async () => { throw Object.assign(new Error(`getaddrinfo ${code} hooks.test`), { code }); };

async function fetchRun(name: string, code: string) {
  const db = database().db;
  const config = defaultConfig({ tools: { workspace: mkdtempSync(join(tmpdir(), 'echo-resolver-')) } });
  const job = await createJob(db, {
    name, owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], max_retries: 2,
    payload: { kind: 'steps', steps: [{ tool: 'web_fetch', args: { url: 'https://hooks.test/report' } }] },
  });
  await authorise(db, job);
  const run = (await manualRun({ db }, job.id, 'test'))!;
  const base = { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ lookup: failing(code) })), logger: silentLogger, workerId: 'test:1' };
  await executeRun({ ...base, agent: daemonAgentRuntime(base) }, run.id);
  const decisions = (await listAudit(db, { kind: 'gate.decision', limit: 20 })).filter((a) => a.run_id === run.id);
  return { run: (await getRun(db, run.id))!, decisions };
}

describe('a daemon run whose target name cannot be looked up', () => {
  it('a resolver that does not answer (EAI_AGAIN) is a passing failure: the run is retried, no refusal counted, the gate\'s decision still audited', async () => {
    const { run, decisions } = await fetchRun('resolver-down', 'EAI_AGAIN');
    expect(run).toMatchObject({ state: 'retrying', denials: 0 });
    expect(run.error).toMatch(/step 1 \(web_fetch\) could not run: The resolver did not answer for now.* \(hooks\.test\)/);
    expect(decisions[0]).toMatchObject({ outcome: 'deny', rule: 'unattended.flagged' });
  });

  it('a name that does not exist (ENOTFOUND) stays a refusal', async () => {
    const { run } = await fetchRun('no-such-name', 'ENOTFOUND');
    expect(run.state).not.toBe('retrying');
    expect(run.denials).toBe(1);
  });
});
