import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-agent-steps-args-'));

describe('a steps run whose step has arguments the tool refuses', () => {
  it('records the refused step in the audit log as an agent call with bad arguments is: step 0, args.invalid, the tool and why (I8)', async () => {
    const db = database().db;
    const config = defaultConfig({ tools: { workspace, restrict_to_workspace: true } });
    // written to the store directly: the cronjob tool refuses such a step when the job is created
    const job = await createJob(db, {
      name: 'bad-step', owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', overlap_policy: 'allow',
      payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 5 } }, { tool: 'read_file', args: { path: 'never.txt' } }] }, tools: [], paused: false,
    });
    const queued = (await manualRun({ db }, job.id, 'test'))!;
    await executeRun({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' }, queued.id);
    const run = (await getRun(db, queued.id))!;
    expect(run).toMatchObject({ state: 'failed', denials: 0 });
    const steps = (run.output as { steps: { tool: string; decision: Record<string, unknown> }[] }).steps;
    expect(steps).toHaveLength(1);
    expect(steps[0]!.decision).toMatchObject({ outcome: 'deny', step: 0, rule: 'args.invalid', reason: expect.stringMatching(/invalid arguments for read_file: .*path/) });
    const audit = await listAudit(db, { run_id: run.id, kind: 'gate.decision' });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ step: 0, rule: 'args.invalid', outcome: 'deny', job_id: job.id, execution_id: run.execution_id, reason: steps[0]!.decision.reason });
    expect((audit[0]!.data as { tool: string; args: unknown }).tool).toBe('read_file');
    expect((audit[0]!.data as { args: unknown }).args).toEqual({ path: 5 });
  });
});
