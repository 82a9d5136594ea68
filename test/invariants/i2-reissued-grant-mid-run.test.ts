import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { revokeGrant } from '../../src/store/grants.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { authorise } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { heldTool } from '../support/held-tool.ts';

/**
 * I2: a run is cron_authorized by the grant it started with. Revoking that grant withdraws it from the
 * run under way; a grant issued afterwards (for the same definition) authorises later runs, and never
 * reaches back into the run that was already going when the first grant was revoked.
 */
const database = useTestDatabase();

describe('I2: a grant revoked while a run is under way stays withdrawn from that run', () => {
  it('even when a human approves the job again before the run\'s next call', async () => {
    const { db } = database();
    const config = defaultConfig({ tools: { also_allow: ['test_slow'] } });
    const job = await createJob(db, {
      name: 'i2-reissued-mid-run', owner: 'test', created_by: 'test', schedule: '0 0 1 1 *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'test_slow', args: {} }, { tool: 'test_slow', args: {} }] },
    });
    await authorise(db, job);
    const held = heldTool('write');
    const tools = builtinTools(config, { db }, {}, [held.tool]);
    const run = (await manualRun({ db }, job.id, 'test'))!;
    const done = executeRun({ db, config, tools, guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:i2' }, run.id);
    await held.started;
    // an admin revokes the grant the run started with; a person then approves the job again
    expect(await revokeGrant(db, { job_id: job.id, by: 'admin', why: 'misbehaving' })).not.toBeNull();
    await authorise(db, job);
    held.release();
    await done;
    expect(held.calls()).toBe(1);
    expect((await getRun(db, run.id))!.state).toBe('denied');
    const decisions = await listAudit(db, { run_id: run.id, kind: 'gate.decision', order: 'asc' });
    expect(decisions.map((d) => [d.outcome, d.step, d.rule])).toEqual([
      ['allow', 4, 'unattended.cron_authorized'],
      ['deny', 4, 'unattended.grant_withdrawn'],
    ]);
  }, 30_000);
});
