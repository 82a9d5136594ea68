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
import { RULE_REMEDIES } from '../../src/policy/rules.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

// A steps job has no model to adapt: a refused step stops the run as a failed one does, since the steps
// after it may depend on what it was to do ("write the report", then "say it is ready"); it ends denied, not failed.
const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-steps-refusal-'));

/** Reads, a write a job without a grant is refused (unattended_policy deny), then a read that would be allowed. */
const steps = [
  { tool: 'list_dir', args: { path: '.' } },
  { tool: 'write_file', args: { path: 'report.txt', content: 'nightly' } },
  { tool: 'list_dir', args: { path: '.' } },
];

async function runUngranted(name: string, maxDenials: number) {
  const config = defaultConfig({ tools: { workspace, restrict_to_workspace: true }, permissions: { approval: { max_denials_per_run: maxDenials } } });
  const db = database().db;
  const job = await createJob(db, { name, owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false, payload: { kind: 'steps', steps } });
  const queued = await manualRun({ db }, job.id, 'test');
  await executeRun({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' }, queued!.id);
  const run = (await getRun(db, queued!.id))!;
  const decisions = await listAudit(db, { run_id: run.id, kind: 'gate.decision', order: 'asc' });
  return { run, decisions };
}

describe('a steps run stops at its first refused step', () => {
  it('below max_denials_per_run it ends denied, naming the step, the rule and the remedy; no later step is tried', async () => {
    const { run, decisions } = await runUngranted('stops-failed', 3);
    expect(run, run.error ?? '').toMatchObject({ state: 'denied', denials: 1, cron_authorized: false });
    // the first step ran, the second was refused, the third never reached the gate
    expect(decisions.map((d) => [(d.data as { tool: string }).tool, d.outcome])).toEqual([['list_dir', 'allow'], ['write_file', 'deny']]);
    expect((run.output as { steps: { index: number }[] }).steps.map((s) => s.index)).toEqual([0, 1]);
    const rule = decisions[1]!.rule!;
    expect(run.error).toBe(`step 2 (write_file) refused at gate step ${decisions[1]!.step}: ${rule} (to fix: ${RULE_REMEDIES[rule as keyof typeof RULE_REMEDIES]})`);
  });

  it('a refusal that reaches max_denials_per_run ends it denied, the error naming the limit and the refused step', async () => {
    const { run, decisions } = await runUngranted('stops-denied', 1);
    expect(run).toMatchObject({ state: 'denied', denials: 1 });
    expect(decisions).toHaveLength(2);
    expect(run.error).toMatch(/^stopped after 1 refusals \(max_denials_per_run\): step 2 \(write_file\) refused at gate step \d+: unattended\.\S+ \(to fix: /);
    const [state] = await listAudit(database().db, { run_id: run.id, kind: 'run.state' });
    expect(state).toMatchObject({ outcome: 'denied', rule: 'run.max_denials', reason: run.error });
  });
});
