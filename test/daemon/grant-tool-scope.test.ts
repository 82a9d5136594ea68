import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { runAuthorization } from '../../src/jobs/run-authorization.ts';
import { manualRun, updateJobFromCall } from '../../src/jobs/service.ts';
import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { attendedCall } from '../../src/session/attended-call.ts';
import { answerApproval } from '../../src/store/approvals.ts';
import { storeApprover } from '../../src/store/approver.ts';
import { listAudit } from '../../src/store/audit.ts';
import { listGrants, liveGrant } from '../../src/store/grants.ts';
import { getJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-grant-scope-'));
const base = { tools: { workspace, restrict_to_workspace: true } } as const;
// when the job is approved, the admin has edit_file denied; later the deny is lifted
const approvalConfig = defaultConfig({ tools: { ...base.tools, deny: ['edit_file'] } });
const laterConfig = defaultConfig(base);

// each job writes its own file
const steps = (file: string) => [
  { tool: 'write_file', args: { path: file, content: 'one' } },
  { tool: 'edit_file', args: { path: file, old_text: 'one', new_text: 'two' } },
];
const createArgs = (name: string) => ({ action: 'create', name, schedule: '0 3 * * *', timezone: 'UTC', payload: { kind: 'steps', steps: steps(`${name}.txt`) } });
const attended = () => buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' });

class HumanAtTerminal implements HumanApprover {
  async ask(req: ApprovalRequest): Promise<ApprovalAnswer> {
    return { answer: 'once', approver: 'alice', request_id: req.request_id, call_hash: req.call_hash };
  }
}

async function createJob(name: string, approver: HumanApprover, config: Config = approvalConfig): Promise<string> {
  const db = database().db;
  const out = await attendedCall({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), approver }, { tool: 'cronjob', args: createArgs(name) }, attended());
  expect(out.result.success, out.result.error).toBe(true);
  expect((out.result.output as { cron_authorized: boolean }).cron_authorized).toBe(true);
  return (out.result.output as { job: { id: string } }).job.id;
}

async function runNow(jobId: string, config: Config) {
  const db = database().db;
  const run = await manualRun({ db }, jobId, 'test');
  await executeRun({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' }, run!.id);
  const done = (await getRun(db, run!.id))!;
  const decisions = await listAudit(db, { run_id: run!.id, kind: 'gate.decision', order: 'asc' });
  return { run: done, decisions: decisions.map((d) => [(d.data as { tool: string }).tool, d.outcome, d.rule]) };
}

describe('a human grant covers the tools its approval listed, not what the configuration offers later (I2)', () => {
  it('records the tools the approval listed on the grant and in its audit record', async () => {
    const jobId = await createJob('recorded', new HumanAtTerminal());
    const grant = await liveGrant(database().db, jobId);
    expect(grant?.tool_scope).toEqual(['write_file']);
    const issued = await listAudit(database().db, { job_id: jobId, kind: 'grant.issued' });
    expect(issued[0]?.data).toMatchObject({ tool_scope: ['write_file'] });
  });

  it('a step the approval showed as unavailable is refused as outside the grant once an admin offers its tool', async () => {
    const jobId = await createJob('widened', new HumanAtTerminal());
    const { run, decisions } = await runNow(jobId, laterConfig);
    expect(run.cron_authorized).toBe(true);
    expect(decisions).toEqual([['write_file', 'allow', 'unattended.cron_authorized'], ['edit_file', 'deny', 'unattended.outside_grant']]);
    expect(readFileSync(join(workspace, 'widened.txt'), 'utf8')).toBe('one');
  });

  it('a step whose tool the approval listed keeps its authorisation under the same configuration', async () => {
    const jobId = await createJob('unchanged', new HumanAtTerminal(), laterConfig);
    expect((await liveGrant(database().db, jobId))?.tool_scope).toEqual(['write_file', 'edit_file']);
    const { decisions } = await runNow(jobId, laterConfig);
    expect(decisions).toEqual([['write_file', 'allow', 'unattended.cron_authorized'], ['edit_file', 'allow', 'unattended.cron_authorized']]);
    expect(readFileSync(join(workspace, 'unchanged.txt'), 'utf8')).toBe('two');
  });

  it('takes the tools from the stored request the person answered, not from the process that issues the grant', async () => {
    const db = database().db;
    // the request was written where the call waited, with its own view of the tools; the answer comes from another shell
    const approver = storeApprover(db, {
      pollMs: 20,
      toolScope: async () => ['write_file'],
      onPending: (row, code) => void answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'carol', code }),
    });
    const jobId = await createJob('stored-request', approver, laterConfig);
    const grant = await liveGrant(db, jobId);
    expect(grant).toMatchObject({ approver: 'carol', tool_scope: ['write_file'] });
    const { decisions } = await runNow(jobId, laterConfig);
    expect(decisions.map((d) => d[2])).toEqual(['unattended.cron_authorized', 'unattended.outside_grant']);
  });

  it('a child job is covered by the tools of the grant it inherits', async () => {
    const db = database().db;
    const parentId = await createJob('parent', new HumanAtTerminal());
    const parent = (await getJob(db, parentId))!;
    const grant = (await liveGrant(db, parentId))!;
    const child = { ...parent, id: 'job_child_scope', origin: 'spawn_task', parent_job_id: parentId, parent_grant_id: grant.id } as typeof parent;
    expect(await runAuthorization(db, child)).toMatchObject({ cron_authorized: true, rule: 'grant.inherited', tool_scope: ['write_file'] });
  });

  /** A config file for the CLI: this test's schema, and the configuration as it is after the approval. */
  const laterConfigFile = () => {
    const cfg = join(workspace, 'echo-agent.yaml');
    writeFileSync(cfg, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\ntools:\n  workspace: ${workspace}\n`);
    return cfg;
  };

  it('grants show names the tools the approval covered, and a tool offered since then as outside the grant', async () => {
    const jobId = await createJob('shown', new HumanAtTerminal());
    const cfg = laterConfigFile();
    const text = await runCli(['grants', 'show', jobId], { env: { ECHO_AGENT_CONFIG: cfg } });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('the approval covered these tools, and the grant covers no others: write_file');
    expect(text.stdout).toMatch(/edit_file\s+write\s+refused\s+unattended\.outside_grant/);
    const list = await runCli(['grants', 'list', '--job', jobId], { env: { ECHO_AGENT_CONFIG: cfg } });
    expect(list.stdout).toMatch(/TOOLS/);
    expect(list.stdout).toMatch(/alice\s+cli\s+\S+\s+write_file\s/);
    const json = JSON.parse((await runCli(['grants', 'show', jobId, '--json'], { env: { ECHO_AGENT_CONFIG: cfg } })).stdout) as { authorization: { tool_scope: string[] }; tools: { name: string; rule: string }[] };
    expect(json.authorization.tool_scope).toEqual(['write_file']);
    expect(json.tools).toEqual([expect.objectContaining({ name: 'write_file', rule: 'unattended.cron_authorized' }), expect.objectContaining({ name: 'edit_file', rule: 'unattended.outside_grant' })]);
  });

  it('check call --job decides a call as that job\'s run would tonight, grant scope included', async () => {
    const jobId = await createJob('checked', new HumanAtTerminal());
    const env = { ECHO_AGENT_CONFIG: laterConfigFile() };
    const check = (tool: string, args: object, ...more: string[]) => runCli(['check', 'call', '--job', jobId, '--tool', tool, '--args', JSON.stringify(args), '--no-dns', '--json', ...more], { env });
    const write = await check('write_file', { path: 'checked.txt', content: 'x' });
    expect(write.code, write.stderr).toBe(0);
    // with --json the job's side is in the one document, not on stderr
    expect(JSON.parse(write.stdout)).toMatchObject({
      outcome: 'allow', step: 4, rule: 'unattended.cron_authorized',
      job: { id: jobId, name: 'checked', cron_authorized: true, rule: 'grant.valid', grant_id: expect.stringMatching(/^grt_/) },
    });
    expect(write.stderr).toBe('');
    const plain = await runCli(['check', 'call', '--job', jobId, '--tool', 'write_file', '--args', '{"path":"checked.txt","content":"x"}', '--no-dns'], { env });
    expect(plain.stderr).toContain(`note: --job: job ${jobId} (checked): cron_authorized yes (grant.valid:`);
    const edit = await check('edit_file', { path: 'checked.txt', old_text: 'x', new_text: 'y' });
    expect(edit.code).toBe(1);
    expect(JSON.parse(edit.stdout)).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.outside_grant' });
    // what the run would never call is said, not silently judged
    const other = await check('read_file', { path: 'checked.txt' });
    expect(JSON.parse(other.stdout).job.notes).toContain('the job\'s runs never call read_file: its steps do not name it');
    // the run decides its own context
    const both = await check('write_file', { path: 'checked.txt', content: 'x' }, '--channel', 'telegram', '--cron-authorized', '--unattended');
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('--job: the job\'s run decides --cron-authorized, --channel; leave them out');
    expect((await runCli(['check', 'call', '--job', 'job_nosuch', '--tool', 'read_file', '--args', '{}'], { env })).stderr).toContain('job_nosuch');
  });

  describe('a human-approved update that leaves the definition alone', () => {
    /** An update of a setting outside the definition, approved by a person shown `scope`. */
    const approvedTimeoutChange = (jobId: string, scope: readonly string[], source: 'human' | 'auto' = 'human') => updateJobFromCall(
      { db: database().db, checks: { knownTool: (n) => CATALOG_BY_NAME.has(n), notifyTargets: [] }, grantScope: () => scope },
      jobId, { timeout_seconds: 120 }, buildContext({ channel: 'cli', user_id: 'dana', approval_source: source }), source === 'human' ? { approval_source: 'human', approval_id: 'apr_not_stored', approver: 'dana' } : { approval_source: 'auto' },
    );

    it('renews the grant\'s tools to what the person was shown now', async () => {
      const jobId = await createJob('renewed', new HumanAtTerminal());
      const before = (await liveGrant(database().db, jobId))!;
      const r = await approvedTimeoutChange(jobId, ['write_file', 'edit_file']);
      expect(r?.grant).toMatchObject({ approver: 'dana', tool_scope: ['write_file', 'edit_file'] });
      expect((await listGrants(database().db, { job_id: jobId, includeRevoked: true })).find((g) => g.id === before.id)?.revoked_why).toBe(`superseded by ${r!.grant!.id}`);
      const { decisions } = await runNow(jobId, laterConfig);
      expect(decisions.map((d) => d[2])).toEqual(['unattended.cron_authorized', 'unattended.cron_authorized']);
    });

    it('keeps a grant that already covers exactly those tools', async () => {
      const jobId = await createJob('kept', new HumanAtTerminal());
      const before = (await liveGrant(database().db, jobId))!;
      const r = await approvedTimeoutChange(jobId, ['write_file']);
      expect(r?.grant?.id).toBe(before.id);
      expect((await liveGrant(database().db, jobId))?.id).toBe(before.id);
    });

    it('renews a grant from before tool scopes were recorded, which covered every tool, to the list shown', async () => {
      const jobId = await createJob('legacy', new HumanAtTerminal());
      await database().pool.query('update job_grants set tool_scope = null where job_id = $1', [jobId]);
      expect((await runNow(jobId, laterConfig)).decisions.map((d) => d[2])).toEqual(['unattended.cron_authorized', 'unattended.cron_authorized']);
      await approvedTimeoutChange(jobId, ['write_file']);
      expect((await runNow(jobId, laterConfig)).decisions.map((d) => d[2])).toEqual(['unattended.cron_authorized', 'unattended.outside_grant']);
    });

    it('gives a job whose grant was revoked a new one when a person approves a change outside its definition: they were shown the whole job (I2)', async () => {
      const jobId = await createJob('revoked-then-tweaked', new HumanAtTerminal());
      await database().pool.query('update job_grants set revoked_at = now(), revoked_by = $2, revoked_why = $3 where job_id = $1', [jobId, 'admin', 'test']);
      const r = await approvedTimeoutChange(jobId, ['write_file']);
      expect(r?.verdict).toMatchObject({ issue: true, rule: 'grant.human_approved', approver: 'dana' });
      expect(await liveGrant(database().db, jobId)).toMatchObject({ id: r!.grant!.id, approver: 'dana', tool_scope: ['write_file'] });
      // authorised again, for the tools the person was shown
      expect((await runNow(jobId, laterConfig)).decisions.map((d) => d[2])).toEqual(['unattended.cron_authorized', 'unattended.outside_grant']);
    });

    it('an auto-approved one leaves the grant and its tools as they are', async () => {
      const jobId = await createJob('auto-tweaked', new HumanAtTerminal());
      const before = (await liveGrant(database().db, jobId))!;
      await approvedTimeoutChange(jobId, ['write_file', 'edit_file'], 'auto');
      expect(await liveGrant(database().db, jobId)).toMatchObject({ id: before.id, tool_scope: ['write_file'] });
    });
  });
});
