import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { createChildJob } from '../../src/jobs/child-jobs.ts';
import { instantsDueAtPause, instantsMissedWhilePaused } from '../../src/jobs/next-fire.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createJob, pauseJob, resumeJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { authorise } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';

// An admin pauses a job in an incident: the child jobs its runs made kept running under its grant.
const database = useTestDatabase();

describe('a paused job\'s child jobs', () => {
  it('a child\'s queued run is cancelled like the job\'s own fired runs, naming the paused job; after the resume a new child runs', async () => {
    const db = database().db;
    const config = defaultConfig({ tools: { workspace: mkdtempSync(join(tmpdir(), 'echo-paused-parent-')) } });
    const parent = await createJob(db, {
      name: 'incident', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
    });
    await authorise(db, parent);
    const ctx = buildContext({ unattended: true, cron_authorized: true, channel: 'cron', user_id: 'alice', session_key: `cron:${parent.id}` });
    const made = () => createChildJob({ db }, { origin: 'workflow', name: 'child', payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] } }, ctx);
    const { run } = await made();
    await pauseJob(db, parent.id, { actor: 'admin', note: 'incident 42' }, instantsDueAtPause);
    const base = { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' };
    await executeRun({ ...base, agent: daemonAgentRuntime(base) }, run.id);
    expect(await getRun(db, run.id)).toMatchObject({ state: 'cancelled', error: `job ${parent.id} (incident), whose run made this child job, was paused before the run started` });
    await resumeJob(db, parent.id, { actor: 'admin' }, instantsMissedWhilePaused);
    const again = await made();
    await executeRun({ ...base, agent: daemonAgentRuntime(base) }, again.run.id);
    expect(await getRun(db, again.run.id)).toMatchObject({ state: 'succeeded', cron_authorized: true });
  });
});
