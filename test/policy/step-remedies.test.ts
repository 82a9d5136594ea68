import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { PATH_RULES } from '../../src/guard/paths/check-paths.ts';
import { SHELL_RULES } from '../../src/guard/shell/rules.ts';
import { URL_RULES } from '../../src/guard/ssrf/check-url.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { GUARD_REMEDY, remedyFor, RULES, RULE_REMEDIES } from '../../src/policy/rules.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

// A refusal at step 1 carries the guard's own rule (shell.*, path.*, ssrf.*), never one of the gate's table.
const GUARD_DENY_RULES = [
  ...SHELL_RULES.filter((r) => r.severity === 'deny').map((r) => r.id),
  ...Object.keys(PATH_RULES),
  ...Object.keys(URL_RULES),
];

describe('remedyFor', () => {
  it.each(GUARD_DENY_RULES)('a step-1 refusal by %s gets a remedy', (rule) => {
    expect(remedyFor({ step: 1, rule })).toBeTruthy();
  });

  it('a path outside the workspace is told to use one inside; other guard refusals to change the step', () => {
    expect(remedyFor({ step: 1, rule: 'path.outside_workspace' })).toContain('tools.workspace');
    expect(remedyFor({ step: 1, rule: 'shell.rm.recursive_root' })).toBe(GUARD_REMEDY);
  });

  it('keeps each policy remedy for its own rule, and gives none where the table has none', () => {
    for (const [rule, remedy] of Object.entries(RULE_REMEDIES)) expect(remedyFor({ step: 4, rule })).toBe(remedy);
    const without = Object.keys(RULES).filter((r) => !Object.hasOwn(RULE_REMEDIES, r));
    expect(without.length).toBeGreaterThan(0);
    for (const rule of without) expect(remedyFor({ step: 4, rule }), rule).toBeUndefined();
  });
});

const PATH_REMEDY = 'use a path inside tools.workspace';
const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-guard-remedy-'));

describe('a steps run refused by the guard', () => {
  it('ends failed with the step-1 rule and its remedy', async () => {
    const config = defaultConfig({ tools: { workspace, restrict_to_workspace: true } });
    const db = database().db;
    const job = await createJob(db, {
      name: 'reads-outside', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '/' } }] },
    });
    const queued = await manualRun({ db }, job.id, 'test');
    await executeRun({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' }, queued!.id);
    const run = (await getRun(db, queued!.id))!;
    const [decision] = await listAudit(db, { run_id: run.id, kind: 'gate.decision' });
    expect(decision).toMatchObject({ outcome: 'deny', step: 1, rule: 'path.outside_workspace' });
    expect(run, run.error ?? '').toMatchObject({ state: 'denied', denials: 1 });
    expect(run.error).toBe(`step 1 (list_dir) refused at gate step 1: path.outside_workspace (to fix: ${PATH_REMEDY})`);
  });
});
