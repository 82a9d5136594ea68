import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { grantReport } from '../../src/cli/grant-report.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { ruleReason } from '../../src/policy/rules.ts';
import { describeJobCall, jobToolSet, needsAPersonNote } from '../../src/session/job-preview.ts';
import { createApproval } from '../../src/store/approvals.ts';
import { createJob, listJobs } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { approvedElsewhere, runCli } from '../support/cli.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';
import { useTestDatabase } from '../support/db.ts';
import { authorise } from '../support/crash-config.ts';

// "What went wrong tonight, and did that approval count?": runs list --refused agrees with audit list --outcome deny,
// --problems finds every run that ended wrong or with an error, and approvals list/show say how an answer came and
// whether the chain backs it.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-problems-'));
let env: NodeJS.ProcessEnv;
const ids: Record<string, string> = {};
let approvalId: string;
let forged: string;
let writer: string;

const cli = async (args: string[]) => {
  const r = await runCli(args, { env });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};
const listed = async (...args: string[]) => (JSON.parse(await cli(['runs', 'list', ...args, '--json'])) as { id: string }[]).map((r) => r.id).sort();

beforeAll(async () => {
  const { db, pool, schema } = database();
  const file = join(dir, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(schema, ['tools:', `  workspace: ${dir}`, 'permissions:', '  approval:', '    wait_timeout_seconds: 60']));
  env = { ECHO_AGENT_CONFIG: file };
  // a steps run whose step had bad arguments: failed, DENIALS 0, refused at gate step 0 (args.invalid)
  const config = defaultConfig({ tools: { workspace: dir } });
  const bad = await createJob(db, { name: 'bad-args', owner: 'a', created_by: 'a', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false, payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: 123 } }] } });
  const queued = (await manualRun({ db }, bad.id, 'test'))!;
  await executeRun({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' }, queued.id);
  ids.badArgs = queued.id;
  // runs set by hand: an agent run that succeeded with an error, a clean one, a cancelled one, one still queued
  const other = await createJob(db, { name: 'other', owner: 'a', created_by: 'a', schedule: '0 4 * * *', timezone: 'UTC', tools: [], paused: false, payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] } });
  for (const [key, h, state, error] of [['okWithError', 1, 'succeeded', '1 call failed: read_file (not_found: nope.txt)'], ['clean', 2, 'succeeded', null], ['cancelled', 3, 'cancelled', 'cancelled by admin'], ['queued', 4, 'queued', null]] as const) {
    const run = (await insertRun(db, { job_id: other.id, nominal_at: new Date(Date.now() - h * 3_600_000) }))!;
    await pool.query('update runs set state = $2, error = $3 where id = $1', [run.id, state, error]);
    ids[key] = run.id;
  }
  // a job approved from another shell (approvals approve), and a request whose row is answered by SQL alone
  const jobFile = join(dir, 'writer.yaml');
  writeFileSync(jobFile, ['name: writer', 'schedule: "0 3 * * *"', 'payload:', '  kind: steps', '  steps:', '    - { tool: list_dir, args: { path: "." } }', 'tools: [list_dir]', ''].join('\n'));
  approvalId = (await approvedElsewhere('alice', ['jobs', 'create', '--file', jobFile, '--as', 'bob'], env)).approvalId;
  writer = (await listJobs(db)).find((j) => j.name === 'writer')!.id;
  forged = (await createApproval(db, { call_hash: 'h', tool: 'write_file', args: { path: 'x' }, risk: 'write', channel: 'cli', user_id: 'bob', expires_at: new Date(Date.now() + 600_000), code_hash: 'c' })).id;
  await pool.query(`update approvals set state = 'approved', answer = 'once', answered_by = 'mallory', answered_at = now() where id = $1`, [forged]);
}, 240_000);

describe('runs list --refused and --problems', () => {
  it('--refused finds a run refused at gate step 0 (args.invalid), as audit list --outcome deny does', async () => {
    const denies = JSON.parse(await cli(['audit', 'list', '--outcome', 'deny', '--json'])) as { run_id: string | null; rule: string }[];
    expect(denies.find((d) => d.run_id === ids.badArgs)).toMatchObject({ rule: 'args.invalid' });
    expect(await listed('--refused')).toEqual([ids.badArgs]);
  });

  it('--problems: every run that ended wrong or succeeded with an error, not a clean or unfinished one', async () => {
    expect(await listed('--problems')).toEqual([ids.badArgs, ids.okWithError, ids.cancelled].sort());
  });
});

describe('approvals list/show: how an answer came, and whether it counted', () => {
  it('an answer given with approvals approve is shown with its channel and counts', async () => {
    const shown = await cli(['approvals', 'show', approvalId]);
    expect(shown).toContain('answered with echo-agent approvals approve|deny, not at the asking prompt (answered_via approvals_command)');
    expect(shown).not.toContain('not counted');
    const json = JSON.parse(await cli(['approvals', 'show', approvalId, '--json'])) as Record<string, unknown>;
    expect(json).toMatchObject({ answered_via: 'approvals_command', answer_counted: true, answer_not_counted: [] });
    const grant = JSON.parse(await cli(['grants', 'show', writer, '--json'])) as { grant: Record<string, unknown> };
    expect(grant.grant).toMatchObject({ approval_id: approvalId, answered_via: 'approvals_command' });
  });

  it('a row answered with SQL alone is shown as not counted, in list and show', async () => {
    const shown = await cli(['approvals', 'show', forged]);
    expect(shown).toMatch(/approved once by mallory at \S+ \(not counted: no approval\.answered record, no answer proof\)/);
    const list = await cli(['approvals', 'list', '--all']);
    const line = list.split('\n').find((l) => l.startsWith(forged))!;
    expect(line).toContain('approved (not counted: no approval.answered record, no answer proof)');
    expect(list.split('\n').find((l) => l.startsWith(approvalId))).toMatch(/ approved .*approvals_command/);
    const rows = JSON.parse(await cli(['approvals', 'list', '--all', '--json'])) as Record<string, unknown>[];
    expect(rows.find((r) => r.id === forged)).toMatchObject({ answer_counted: false, answered_via: null });
  });
});

describe('what a grant covers, in words', () => {
  it('clarify is not offered to unattended runs: grants show, the approval prompt and check call say so', async () => {
    const { db } = database();
    const config = defaultConfig({ tools: { workspace: dir } });
    const job = await createJob(db, { name: 'asker', owner: 'a', created_by: 'a', schedule: '0 5 * * *', timezone: 'UTC', tools: [], paused: false, payload: { kind: 'agent', prompt: 'hi' } });
    await authorise(db, job);
    const report = await grantReport(config, db, job.id);
    expect(report.tools.find((t) => t.name === 'clarify')).toMatchObject({ tonight: 'not offered to unattended runs (needs a person)', rule: 'tools.needs_a_person' });
    const prompt = describeJobCall(config, builtinTools(config, { db }), { action: 'create', name: 'asker', schedule: '0 5 * * *', payload: { kind: 'agent', prompt: 'hi' } });
    const usable = prompt[prompt.findIndex((l) => l.includes('its runs may call these tools')) + 1]!;
    expect(usable).not.toContain('clarify');
    expect(prompt).toContain('  not offered to unattended runs (needs a person): clarify');
    expect(needsAPersonNote(jobToolSet(config, builtinTools(config, { db }), [], job.payload), 'clarify')).toContain('not offered to unattended runs (needs a person)');
  });

  it('no sentence says a grant covers exec calls (the daemon never offers exec)', () => {
    expect(ruleReason('unattended.cron_authorized')).not.toMatch(/exec calls/);
  });
});
