import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalGate } from '../../src/approval/gate.ts';
import { loadConfig } from '../../src/config/load.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGatePorts, systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { addAllowlist, allowlistStore } from '../../src/store/allowlist.ts';
import { appendAudits } from '../../src/store/audit.ts';
import { groupCommitAppend } from '../../src/store/audit-writer.ts';
import { auditDecisionSink } from '../../src/store/decision-sink.ts';
import { createJob, listJobs, updateJob } from '../../src/store/jobs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { ROOT, runCli, waitingApproval } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

// The admin after an incident: "what did job X do last night, on whose authority, by which rule?",
// answered with the CLI alone. The job is created attended (alice approves), changed by bob (approved),
// by a sync script (no human: the grant is cleared), by carol (approved) and by dave (outside the
// definition: the grant stays); the daemon runs it in between; then frank revokes, pauses and removes it.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-incident-'));
let env: NodeJS.ProcessEnv;
let configFile: string;
let model: Awaited<ReturnType<typeof startFakeModel>>;
let jobId: string;
/** Runs under alice's grant, under none (after the sync script), under carol's. */
const runs: { alice?: string; none?: string; carol?: string } = {};

/** Each run the model asks for: a read, a write, a hard-blocked read, a tool outside the job, a flagged fetch. */
const SCRIPT = [
  { name: 'list_dir', arguments: { path: '.' } },
  { name: 'write_file', arguments: { path: 'report.txt', content: 'ok' } },
  { name: 'read_file', arguments: { path: '/etc/shadow' } },
  { name: 'cronjob', arguments: { action: 'list' } },
  { name: 'web_fetch', arguments: { url: 'http://169.254.169.254/latest' } },
];

const cli = (args: string[]) => runCli(args, { env, timeoutMs: 60_000 });
const json = async <T>(args: string[]): Promise<T> => {
  const r = await cli([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
};

/** A job change through the gate (no terminal), approved by `as` with `approvals approve` in another shell. */
async function approvedChange(args: string[], as: string) {
  // what the command printed, as the person who ran it reads it: the request and its code
  const seen: { waiting?: { id: string; code: string } | null } = {};
  const change = runCli([...args, '--as', as], { env, timeoutMs: 60_000, onStderr: (text) => { seen.waiting ??= waitingApproval(text); } });
  let answered = false;
  for (const started = Date.now(); !answered && Date.now() - started < 30_000; await new Promise((r) => setTimeout(r, 100))) {
    if (seen.waiting) answered = (await runCli(['approvals', 'approve', seen.waiting.id, '--as', as], { env, timeoutMs: 60_000, input: `${seen.waiting.code}\n` })).code === 0;
  }
  const r = await change;
  expect(r.code, r.stderr).toBe(0);
}

async function daemonRun(): Promise<string> {
  const db = database().db;
  const { config } = loadConfig(configFile);
  const run = (await manualRun({ db }, jobId, 'scheduler'))!;
  const base = { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1', audit: groupCommitAppend(db) };
  await executeRun({ ...base, agent: daemonAgentRuntime(base) }, run.id);
  return run.id;
}

/** Attended calls in alice's session: step 5, an "always" erin made (step 9), auto_approve (6), a trusted channel (8). */
async function attendedCalls() {
  const db = database().db;
  const { config } = loadConfig(configFile);
  await addAllowlist(db, { tool: 'delegate_task', scope: 'delegate_task', created_by: 'erin', reason: 'always, in an attended session', approval_id: 'apr_erin' });
  const gate = createApprovalGate(config, { ...systemGatePorts, guard: createGuard(config, systemGuardDeps({ dns: false })), allowlist: allowlistStore(db), lookupTool: catalogLookup(config), sink: auditDecisionSink(db) });
  const calls = [['read_file', { path: 'a.txt' }, 'cli'], ['delegate_task', { task: 'summarise' }, 'cli'], ['spawn_task', { prompt: 'x' }, 'cli'], ['exec', { command: 'git status' }, 'telegram']] as const;
  return Promise.all(calls.map(([tool, args, channel]) => gate.check({ tool, args }, buildContext({ user_id: 'alice', channel, session_key: 'sess-alice' }))));
}

beforeAll(async () => {
  model = await startFakeModel((body) => {
    const n = body.messages.filter((m) => m.role === 'tool').length;
    return n < SCRIPT.length ? { tool_calls: [SCRIPT[n]!] } : { content: 'done' };
  });
  configFile = join(dir, 'echo-agent.yaml');
  writeFileSync(configFile, [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    'model:', `  base_url: ${model.url}`, '  name: scripted', 'tools:', `  workspace: ${dir}`,
    'notify:', '  targets:', '    ops: { url: "http://hooks.invalid/x" }',
    'permissions:', '  approval:', '    wait_timeout_seconds: 60', '    auto_approve: [spawn_task]', '    trusted_channels: [telegram]', '',
  ].join('\n'));
  env = { ECHO_AGENT_CONFIG: configFile };
  writeFileSync(join(dir, 'job.yaml'), [
    'name: nightly-digest', 'schedule: "30 2 * * *"', 'timezone: Europe/Berlin', 'payload:', '  kind: agent', '  prompt: write the digest',
    'tools: [list_dir, read_file, write_file, notify, web_fetch]', 'delivery: { notify: ops }', '',
  ].join('\n'));
  writeFileSync(join(dir, 'timeout.yaml'), 'timeout_seconds: 900\n');
  await approvedChange(['jobs', 'create', '--file', join(dir, 'job.yaml')], 'alice');
  jobId = (await listJobs(database().db)).find((j) => j.name === 'nightly-digest')!.id;
  runs.alice = await daemonRun();
  await approvedChange(['jobs', 'update', jobId, '--schedule', '45 2 * * *'], 'bob');
  // a script writing the store directly: no human approved it, so the grant ends (I2)
  await updateJob(database().db, jobId, { payload: { kind: 'agent', prompt: 'write the digest, and more' } }, { actor: 'sync-bot' });
  runs.none = await daemonRun();
  await approvedChange(['jobs', 'update', jobId, '--prompt', 'write the digest again'], 'carol');
  await approvedChange(['jobs', 'update', jobId, '--file', join(dir, 'timeout.yaml')], 'dave');
  runs.carol = await daemonRun();
  await attendedCalls();
  expect((await cli(['grants', 'revoke', jobId, '--why', 'incident 42', '--as', 'frank'])).code).toBe(0);
  expect((await cli(['jobs', 'pause', jobId, '--note', 'under investigation', '--as', 'frank'])).code).toBe(0);
  expect((await cli(['jobs', 'remove', jobId, '--why', 'replaced after incident 42', '--as', 'frank'])).code).toBe(0);
}, 240_000);
afterAll(() => model.close());

interface Shown { kind: string; seq: number; step: number | null; outcome: string | null; rule: string | null; reason: string | null; actor: string | null; data: Record<string, unknown>; authority: { kind: string; ref: string; by?: string; at?: string; text: string } | null }
const decisions = (rows: Shown[]) => rows.filter((r) => r.kind === 'gate.decision');
/** The table line (it starts with the record's SEQ) holding every part. */
const lineOf = (out: string, ...parts: string[]) => out.split('\n').find((l) => /^\d+ /.test(l) && parts.every((p) => l.includes(p)));

describe('one run, reconstructed with runs show: each call, its decision, step, rule, reason and authority', () => {
  it('names, for every allow, the grant behind it: its approver, approval id and time, and that it has ended since', async () => {
    const r = await cli(['runs', 'show', runs.carol!]);
    expect(r.code, r.stderr).toBe(0);
    const shown = await json<{ grant: { id: string; approver: string; approval_id: string; approved_at: string; revoked_by: string; revoked_why: string }; audit: Shown[] }>(['runs', 'show', runs.carol!]);
    const g = shown.grant;
    expect(g).toMatchObject({ approver: 'carol', revoked_by: 'frank', revoked_why: 'incident 42' });
    expect(g.approval_id).toMatch(/^apr_/);
    expect(r.stdout).toContain(`grant: ${g.id}, approved by carol on cli at ${g.approved_at} (approval ${g.approval_id}, answered from OS account ${userInfo().username} on ${hostname()}); ended `);
    expect(r.stdout).toMatch(/; ended \S+ by frank: incident 42/);
    // the nominal instant on the job's own clock too: "last night" is Berlin's night
    expect(r.stdout).toMatch(/nominal: \S+Z \(.*Europe\/Berlin\)/);
    const write = decisions(shown.audit).find((d) => d.data.tool === 'write_file')!;
    expect(write).toMatchObject({ step: 4, outcome: 'allow', rule: 'unattended.cron_authorized', authority: { kind: 'grant', ref: g.id, by: 'carol' } });
    expect(lineOf(r.stdout, 'write_file', 'unattended.cron_authorized')).toContain(`grant ${g.id}: approved by carol on cli at ${g.approved_at} (${g.approval_id})`);
    expect(decisions(shown.audit).find((d) => d.data.tool === 'list_dir')?.authority).toMatchObject({ kind: 'none_needed' });
    // the run.started line names the grant the run began with
    expect(lineOf(r.stdout, 'run.started', 'grant.valid')).toContain(`grant ${g.id}`);
  }, 60_000);

  it('a run after a change nobody approved: no grant, and each refusal with its step, rule and reason', async () => {
    const r = await cli(['runs', 'show', runs.none!]);
    expect(r.code, r.stderr).toBe(0);
    // the grant the change cleared is named, with who cleared it and why
    expect(r.stdout).toMatch(/grant: - \(none: grant grt_\w+ cleared \d+ ms before the run started, at \S+, by sync-bot: definition changed \(payload\); grant\.none, judged under unattended_policy\)/);
    expect(lineOf(r.stdout, 'run.started')).toContain('grant.none');
    const shown = await json<{ audit: Shown[] }>(['runs', 'show', runs.none!]);
    expect(decisions(shown.audit).map((d) => [d.data.tool, d.step, d.outcome, d.rule])).toEqual([
      ['list_dir', 4, 'allow', 'unattended.read_only'],
      ['write_file', 4, 'deny', 'unattended.policy_deny'],
      ['read_file', 1, 'deny', 'path.secret'],
      ['cronjob', 0, 'deny', 'context.allowed_tools'],
    ]);
    expect(shown.audit.find((a) => a.kind === 'run.state')).toMatchObject({ outcome: 'denied', rule: 'run.max_denials' });
    // nothing delivered without a grant, and the log says so
    expect(shown.audit.find((a) => a.kind === 'run.delivery')).toMatchObject({ rule: 'delivery.not_authorized' });
  }, 60_000);

  it('every decision carries a rule id and a reason, and each rule id is a literal in src that grep finds', async () => {
    const rows = (await Promise.all([runs.alice!, runs.none!, runs.carol!].map((id) => json<{ audit: Shown[] }>(['runs', 'show', id])))).flatMap((s) => s.audit);
    for (const d of decisions(rows)) {
      expect(d.rule, JSON.stringify(d)).toMatch(/^[a-z_]+(\.[a-z0-9_]+)+$/);
      expect(d.reason?.length).toBeGreaterThan(10);
    }
    const rules = [...new Set(rows.map((r) => r.rule).filter((x): x is string => x !== null))];
    expect(rules).toEqual(expect.arrayContaining(['unattended.read_only', 'unattended.cron_authorized', 'path.secret', 'unattended.flagged', 'run.max_denials', 'delivery.failed']));
    for (const rule of rules) {
      const found = execFileSync('grep', ['-rlF', `'${rule}'`, 'src'], { cwd: ROOT, encoding: 'utf8' });
      expect(found.trim(), rule).not.toBe('');
    }
  }, 60_000);
});

describe('audit list: who allowed what, and what each change did', () => {
  it('names the authority of attended allows: the "always" record\'s maker and time, the config key, the human answer', async () => {
    const rows = await json<Shown[]>(['audit', 'list', '--kind', 'gate.decision', '--limit', '200']);
    const att = decisions(rows).filter((d) => d.data.session_key === 'sess-alice');
    const by = (tool: string) => att.find((d) => d.data.tool === tool)!;
    expect(by('read_file')).toMatchObject({ step: 5, rule: 'attended.low_risk', authority: { kind: 'none_needed' } });
    expect(by('delegate_task')).toMatchObject({ step: 9, rule: 'approval.allowlist', authority: { kind: 'allowlist', by: 'erin' } });
    expect(by('delegate_task').authority!.at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(by('spawn_task')).toMatchObject({ step: 6, rule: 'approval.auto_approve', authority: { kind: 'config', ref: 'permissions.approval.auto_approve' } });
    expect(by('exec')).toMatchObject({ step: 8, rule: 'approval.trusted_channel', authority: { kind: 'config', ref: 'permissions.approval.trusted_channels' } });
    // the cronjob calls people approved: who answered, which request
    const human = decisions(rows).filter((d) => d.rule === 'approval.human.once');
    expect(human.map((d) => d.authority?.by).sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
    const text = await cli(['audit', 'list', '--kind', 'gate.decision', '--limit', '200']);
    expect(lineOf(text.stdout, 'delegate_task', 'approval.allowlist')).toMatch(/always alw_\w+: made by erin at \d{4}-/);
    expect(lineOf(text.stdout, 'exec', 'approval.trusted_channel')).toContain('config permissions.approval.trusted_channels (channel telegram)');
  }, 60_000);

  it('says what each job change changed and whether the grant survived it, and who did it from which account', async () => {
    const r = await cli(['audit', 'list', '--job', jobId, '--kind', 'job.updated']);
    expect(r.code, r.stderr).toBe(0);
    expect(lineOf(r.stdout, 'bob')).toMatch(/changed schedule(, next_fire_at)?; a definition change: the grant ends unless a person approved it/);
    expect(lineOf(r.stdout, 'sync-bot')).toContain('changed payload; a definition change');
    expect(lineOf(r.stdout, 'dave')).toContain('changed timeout_seconds; outside the definition: the grant stays');
    const cleared = await json<Shown[]>(['audit', 'list', '--job', jobId, '--kind', 'grant.cleared']);
    expect(cleared.map((c) => [c.actor, c.reason])).toContainEqual(['sync-bot', 'definition changed (payload)']);
  }, 60_000);
});

describe('a revoked grant, a paused and a removed job: who, when, why, from which OS account and host', () => {
  it('each admin action names the --as name, the reason and the account and host it really came from', async () => {
    const me = `${userInfo().username}@${hostname()}`;
    for (const [kind, why] of [['grant.revoked', 'incident 42'], ['job.paused', 'under investigation'], ['job.removed', 'replaced after incident 42']]) {
      const [row] = await json<Shown[]>(['audit', 'list', '--job', jobId, '--kind', kind!]);
      expect(row, kind).toMatchObject({ actor: 'frank', reason: why, data: { from: { os_account: userInfo().username, host: hostname() } } });
      const text = await cli(['audit', 'list', '--job', jobId, '--kind', kind!]);
      expect(lineOf(text.stdout, kind!), kind).toContain(`frank (${me})`);
    }
  }, 60_000);
});

describe('time: --since, paging and the export', () => {
  it('--since takes a time ago as well as an ISO instant; a bad value names the forms (exit 64, no stack)', async () => {
    const recent = await json<Shown[]>(['audit', 'list', '--job', jobId, '--since', '1h', '--limit', '500']);
    const all = await json<Shown[]>(['audit', 'list', '--job', jobId, '--limit', '500']);
    expect(recent.length).toBe(all.length);
    expect(await json<Shown[]>(['audit', 'list', '--job', jobId, '--since', '2030-01-01'])).toEqual([]);
    const bad = await cli(['audit', 'list', '--since', 'yesterday']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--since: expected an ISO-8601 date or instant (2026-12-01, 2026-12-01T08:00:00Z) or a time ago (90m, 24h, 2d, 1w), got "yesterday"');
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('a job with thousands of records pages with --before, and the cut says how to go on', async () => {
    const db = database().db;
    const big = await createJob(db, { name: 'chatty', owner: 'alice', created_by: 'alice', schedule: '* * * * *', timezone: 'UTC', tools: [], payload: { kind: 'steps', steps: [] } });
    await appendAudits(db, Array.from({ length: 3000 }, (_, i) => ({ kind: 'run.state', actor: 'daemon', job_id: big.id, outcome: 'succeeded', reason: `run ${i}` })));
    const first = await cli(['audit', 'list', '--job', big.id, '--limit', '1000', '--json']);
    const page1 = JSON.parse(first.stdout) as Shown[];
    expect(page1).toHaveLength(1000);
    const last = page1[page1.length - 1]!.seq;
    expect(first.stderr).toContain(`showing the newest 1000; use --limit for more, --all for every one, or the same command with --before ${last} for the older ones`);
    const page2 = await json<Shown[]>(['audit', 'list', '--job', big.id, '--limit', '1000', '--before', String(last)]);
    expect(page2[0]!.seq).toBe(last - 1);
    expect(page2.every((r) => r.seq < last)).toBe(true);
    const bad = await cli(['audit', 'list', '--before', 'x7']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--before: expected a record\'s SEQ');
  }, 60_000);

  it('audit export is JSON lines in chain order, ISO UTC times, that audit verify --file accepts', async () => {
    const r = await cli(['audit', 'export']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { seq: number; at: string });
    expect(lines.length).toBeGreaterThan(3000);
    expect(lines.every((l, i) => i === 0 || l.seq === lines[i - 1]!.seq + 1)).toBe(true);
    expect(lines.every((l) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(l.at))).toBe(true);
    const file = join(dir, 'audit.jsonl');
    writeFileSync(file, r.stdout);
    const head = /head (\d+:[0-9a-f]{64})/.exec(r.stderr)![1]!;
    const verified = await runCli(['audit', 'verify', '--file', file, '--head', head], { env: { ECHO_AGENT_CONFIG: '' } });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  }, 60_000);
});
