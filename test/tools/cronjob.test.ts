import { describe, expect, it } from 'vitest';
import { instantsDueAtPause } from '../../src/jobs/next-fire.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { createAgentRuntime } from '../../src/agent/runtime.ts';
import { gatedCall } from '../../src/session/gated-call.ts';
import { effectLedger } from '../../src/store/effects.ts';
import { getJob, listJobs, pauseJob, updateJob } from '../../src/store/jobs.ts';
import { createApproval } from '../../src/store/approvals.ts';
import { liveGrant } from '../../src/store/grants.ts';
import { describeJobCall, jobToolScope, jobToolSet } from '../../src/session/job-preview.ts';
import { jobDefinitionSchema } from '../../src/jobs/definition.ts';
import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { useTestDatabase } from '../support/db.ts';
import { NEEDS_A_PERSON } from '../../src/agent/runtime.ts';

const database = useTestDatabase();
const config = defaultConfig();
const tool = () => builtinTools(config, { db: database().db }).get('cronjob')!;
const create = (name: string) => ({ action: 'create', name, schedule: '0 4 * * *', payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'a' } }] } });
const human = { approval: { approval_source: 'human' as const, approval_id: 'apr_test', approver: 'alice' } };

describe('the cronjob tool', () => {
  it('creates a job; a human approval of the call makes it cron_authorized', async () => {
    // the gate hands the tool both: a context marked human and the approval it came from
    const out = await executeTool(tool(), create('tool-human'), buildContext({ channel: 'cli', user_id: 'alice', approval_source: 'human' }), human);
    expect(out).toMatchObject({ success: true, output: { cron_authorized: true, grant_rule: 'grant.human_approved' } });
    const auto = await executeTool(tool(), create('tool-auto'), buildContext({ channel: 'cli', user_id: 'alice' }), { approval: { approval_source: 'auto' } });
    expect(auto).toMatchObject({ success: true, output: { cron_authorized: false, grant_rule: 'grant.not_human' } });
  });

  it.each([
    [{ action: 'create', schedule: '* * * * *', payload: { kind: 'steps', steps: [{ tool: 'read_file' }] } }, /^name:/],
    [{ ...create('bad-schedule'), schedule: 'every blue moon' }, /^schedule:/],
    [{ action: 'pause' }, /^id:/],
    [{ action: 'explode' }, /action/],
  ])('names the bad argument in %j', async (params, field) => {
    const out = await executeTool(tool(), params as Record<string, unknown>, buildContext({ user_id: 'alice' }));
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toMatch(field);
  });

  it('a definition without a catch-up window takes daemon.catchup_window_seconds from the config', async () => {
    const tuned = builtinTools(defaultConfig({ daemon: { catchup_window_seconds: 120 } }), { db: database().db }).get('cronjob')!;
    const ctx = buildContext({ channel: 'cli', user_id: 'alice' });
    expect((await executeTool(tuned, create('window-default'), ctx)).success).toBe(true);
    expect((await executeTool(tuned, { ...create('window-own'), options: { catchup_window_seconds: 900 } }, ctx)).success).toBe(true);
    const byName = new Map((await listJobs(database().db)).map((j) => [j.name, j.catchup_window_seconds]));
    expect([byName.get('window-default'), byName.get('window-own')]).toEqual([120, 900]);
  });

  it('an "at" instant still ahead on this host but past on the scheduler\'s (database) clock is refused, not stored to never fire', async () => {
    const ahead = builtinTools(config, { db: database().db, now: () => new Date(Date.now() + 3_600_000) }).get('cronjob')!;
    const soon = new Date(Date.now() + 600_000).toISOString();
    const out = await executeTool(ahead, { ...create('at-skewed'), schedule: `at ${soon}` }, buildContext({ channel: 'cli', user_id: 'alice' }));
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toMatch(/^schedule: has no instant after now/);
    expect((await listJobs(database().db)).map((j) => j.name)).not.toContain('at-skewed');
  });

  it('is refused before it runs in an unattended context, even cron_authorized (I1)', async () => {
    const db = database().db;
    const tools = builtinTools(config, { db });
    const runtime = createAgentRuntime({ config, db, tools, guard: createGuard(config, systemGuardDeps({ dns: false })), chat: null });
    const ctx = buildContext({ unattended: true, cron_authorized: true, channel: 'cron', session_key: 'cron:job_x' });
    const out = await gatedCall(runtime.gateFor(ctx), tools, { tool: 'cronjob', args: create('from-a-run') }, ctx, 0);
    expect(out.decision).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.dangerous' });
    expect((await listJobs(db)).find((j) => j.name === 'from-a-run')).toBeUndefined();
  });

  it('a replayed create makes no second job', async () => {
    const db = database().db;
    const params = create('tool-replay');
    const ctx = buildContext({ user_id: 'alice', trace_id: 'trace-cronjob-replay', tool: 'cronjob', params });
    const ledger = effectLedger(db);
    const first = await executeTool(tool(), params, ctx, { ledger, ...human });
    const replay = await executeTool(tool(), params, { ...ctx, is_replay: true }, { ledger, ...human });
    expect(replay).toEqual(first);
    expect((await listJobs(db)).filter((j) => j.name === 'tool-replay')).toHaveLength(1);
  });

  it('a human approval of an update no longer applies once the job changed after the person was asked', async () => {
    const db = database().db;
    const withTarget = defaultConfig({ notify: { targets: { ops: { url: 'https://hooks.example/ops' }, evil: { url: 'https://evil.example/x' } } } });
    const cron = builtinTools(withTarget, { db }).get('cronjob')!;
    const ctx = buildContext({ channel: 'cli', user_id: 'alice', approval_source: 'human' });
    const created = await executeTool(cron, create('tool-race'), ctx, human);
    const id = (created.output as { job: { id: string } }).job.id;
    // the person is asked about a prompt change ...
    const asked = await createApproval(db, { call_hash: 'h', tool: 'cronjob', args: { action: 'update', id }, risk: 'dangerous', channel: 'cli', expires_at: new Date(Date.now() + 60_000) });
    await new Promise((r) => setTimeout(r, 20));
    // ... while another, unapproved change sends every outcome elsewhere
    await updateJob(db, id, { delivery: { notify: 'evil' } }, { actor: 'mallory' });
    const out = await executeTool(cron, { action: 'update', id, payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] } }, ctx,
      { approval: { approval_source: 'human', approval_id: asked.id, approver: 'alice' } });
    expect(out).toMatchObject({ success: false, errorKind: 'business' });
    expect(out.error).toMatch(new RegExp(`job ${id}'s definition was changed at .*, after approval ${asked.id} was asked for; nothing was changed`));
    expect(await liveGrant(db, id)).toBeNull();
    expect((await getJob(db, id))!.payload).toMatchObject({ steps: [{ tool: 'read_file' }] });
  });

  it('a pause while the person is being asked is no change to what they approve', async () => {
    const db = database().db;
    const ctx = buildContext({ channel: 'cli', user_id: 'alice', approval_source: 'human' });
    const created = await executeTool(tool(), create('tool-paused-meanwhile'), ctx, human);
    const id = (created.output as { job: { id: string } }).job.id;
    const asked = await createApproval(db, { call_hash: 'h', tool: 'cronjob', args: { action: 'update', id }, risk: 'dangerous', channel: 'cli', expires_at: new Date(Date.now() + 60_000) });
    await new Promise((r) => setTimeout(r, 20));
    await pauseJob(db, id, { actor: 'bob', note: 'maintenance' }, instantsDueAtPause);
    const out = await executeTool(tool(), { action: 'update', id, payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] } }, ctx,
      { approval: { approval_source: 'human', approval_id: asked.id, approver: 'alice' } });
    expect(out).toMatchObject({ success: true, output: { cron_authorized: true } });
  });

  it('the approval prompt of an update shows the job as it will be, settings the call leaves alone included', async () => {
    const db = database().db;
    const withTarget = defaultConfig({ notify: { targets: { ops: { url: 'https://hooks.example/ops' } } } });
    const tools = builtinTools(withTarget, { db });
    const ctx = buildContext({ channel: 'cli', user_id: 'alice', approval_source: 'human' });
    const created = await executeTool(tools.get('cronjob')!, { ...create('tool-preview'), options: { delivery: { notify: 'ops' }, tools: ['read_file'] } }, ctx, human);
    const stored = (await getJob(db, (created.output as { job: { id: string } }).job.id))!;
    const lines = describeJobCall(withTarget, tools, { action: 'update', id: stored.id, payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: {} }] } }, stored).join('\n');
    expect(lines).toContain('schedule: 0 4 * * * UTC');
    expect(lines).toContain('this call changes: payload;');
    expect(lines).toContain("each run's outcome is posted to notify target: ops");
    expect(lines).toContain('steps (1), in full:\n    1. list_dir {}');
    // a steps job calls its steps, and this one's step is outside the job's own tool subset
    expect(lines).toMatch(/unattended, as written, with:\n {4}\(no tools\)\n/);
    expect(lines).toContain('steps refused in every run (not available to daemon runs): list_dir (');
  });

  it('the approval prompt of a steps job lists its step tools, not every tool the daemon offers, and no dangerous one as allowed', async () => {
    const db = database().db;
    const tools = builtinTools(defaultConfig(), { db });
    const steps = describeJobCall(defaultConfig(), tools, { action: 'create', name: 'x', schedule: 'every 1m', payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: {} }, { tool: 'write_file', args: {} }] } }).join('\n');
    expect(steps).toMatch(/as written, with:\n {4}list_dir\(read_only\), write_file\(write\)\n/);
    const agent = describeJobCall(defaultConfig(), tools, { action: 'create', name: 'y', schedule: 'every 1m', payload: { kind: 'agent', prompt: 'p' } }).join('\n');
    expect(agent).toContain('(the job names no tools: every tool offered now)');
    expect(agent).toContain('write_file(write)');
    expect(agent).not.toMatch(/cronjob\(dangerous\)/);
    expect(steps).not.toContain('no model is configured');
    // a create that leaves the timezone out is UTC, and the approver is told so
    expect(steps).toContain('schedule: every 1m UTC');
  });

  it('the approval prompt of an agent job warns when this configuration has no model its runs could use', async () => {
    const db = database().db;
    const prompt = (config: ReturnType<typeof defaultConfig>, payload: Record<string, unknown>) =>
      describeJobCall(config, builtinTools(config, { db }), { action: 'create', name: 'y', schedule: 'every 1m', payload }).join('\n');
    expect(prompt(defaultConfig(), { kind: 'agent', prompt: 'p' })).toContain('no model is configured here (model.base_url, model.name): its agent runs fail');
    const endpointOnly = defaultConfig({ model: { base_url: 'http://127.0.0.1:9/v1' } });
    expect(prompt(endpointOnly, { kind: 'agent', prompt: 'p' })).toContain('no model is configured here (model.name)');
    // the payload's own model is enough once there is an endpoint
    expect(prompt(endpointOnly, { kind: 'agent', prompt: 'p', model: 'm' })).not.toContain('no model is configured');
    expect(prompt(defaultConfig({ model: { base_url: 'http://127.0.0.1:9/v1', name: 'm' } }), { kind: 'agent', prompt: 'p' })).not.toContain('no model is configured');
    // a step that starts agents needs one as much
    expect(prompt(defaultConfig(), { kind: 'steps', steps: [{ tool: 'delegate_task', args: {} }] })).toContain('no model is configured here');
  });

  it('a steps job whose step starts agents (delegate_task, task, …) shows everything those agents may call, not only the step', async () => {
    const db = database().db;
    const config = defaultConfig({ model: { base_url: 'http://127.0.0.1:9/v1', name: 'm' } });
    const tools = builtinTools(config, { db });
    for (const starter of ['delegate_task', 'spawn_task', 'task', 'workflow']) {
      const lines = describeJobCall(config, tools, { action: 'create', name: 'x', schedule: 'every 1m', payload: { kind: 'steps', steps: [{ tool: starter, args: {} }] } }).join('\n');
      expect(lines, starter).toContain('write_file(write)');
      expect(lines, starter).toContain('a step starts agents (or child jobs) that run under this approval');
      expect(jobToolSet(config, tools, [], { kind: 'steps', steps: [{ tool: starter }] }).offered.map((t) => t.name)).toContain('edit_file');
    }
    // a plain step list stays its steps
    expect(jobToolSet(config, tools, [], { kind: 'steps', steps: [{ tool: 'read_file' }] }).offered.map((t) => t.name)).toEqual(['read_file']);
  });

  it('the prompt lists exactly the tools the grant will cover, and a stored request\'s list when another process asked', async () => {
    const db = database().db;
    const tools = builtinTools(defaultConfig(), { db });
    const args = { action: 'create', name: 'z', schedule: 'every 1m', payload: { kind: 'agent', prompt: 'p' } };
    const scope = jobToolScope(defaultConfig(), tools, args)!;
    expect(scope).toContain('write_file');
    expect(scope).not.toContain('cronjob');
    const listed = describeJobCall(defaultConfig(), tools, args).join('\n');
    // a tool that needs a person to answer (clarify) is covered, but named apart: no unattended run is offered it
    const offered = jobToolSet(defaultConfig(), tools, [], args.payload).offered;
    const asksAPerson = (n: string) => offered.find((t) => t.name === n)!.capabilities.some((c) => NEEDS_A_PERSON.has(c));
    expect(scope.filter(asksAPerson)).toEqual(['clarify']);
    expect(listed).toContain(`unattended with:\n    ${scope.filter((n) => !asksAPerson(n)).map((n) => `${n}(${offered.find((t) => t.name === n)!.risk})`).join(', ')}`);
    expect(listed).toContain('not offered to unattended runs (needs a person): clarify');
    expect(listed).toContain('the grant covers only the tools listed here');
    // approvals show in another shell: the request's own list, whatever this shell's configuration offers
    expect(describeJobCall(defaultConfig(), tools, args, null, ['read_file', 'write_file']).join('\n')).toMatch(/unattended with:\n {4}read_file\(read_only\), write_file\(write\) /);
    // only a call that sets a definition has a scope
    expect(jobToolScope(defaultConfig(), tools, { action: 'pause', id: 'job_x' })).toBeNull();
  });
});

describe('the cronjob tool\'s parameters', () => {
  type Schema = { properties: Record<string, { description?: string; enum?: string[]; properties?: Record<string, { enum?: string[]; description?: string }> }> };
  const params = CATALOG_BY_NAME.get('cronjob')!.parameters as unknown as Schema;

  it('describe payload and options with the fields of a job definition', () => {
    const { payload, options } = params.properties;
    expect(payload!.description).toMatch(/steps.*agent/);
    expect(payload!.properties!.kind!.description).toBe('"steps" (with steps) or "agent" (with prompt)');
    expect(Object.keys(payload!.properties!).sort()).toEqual(['kind', 'model', 'prompt', 'steps']);
    expect(options!.description).toContain('tools');
    // every definition field besides the top-level ones, no more: the schema cannot drift from src/jobs/definition.ts
    const top = ['name', 'schedule', 'timezone', 'payload'];
    expect(Object.keys(options!.properties!).sort()).toEqual(Object.keys(jobDefinitionSchema.shape).filter((k) => !top.includes(k)).sort());
    for (const [key, field] of Object.entries(options!.properties!)) {
      for (const value of field.enum ?? []) expect(jobDefinitionSchema.shape[key as keyof typeof jobDefinitionSchema.shape].safeParse(value).success, `${key}: ${value}`).toBe(true);
    }
  });

  it.each([
    ['tools', ['read_file'], 'tools: is not a known parameter; put it under options'],
    ['timeout_seconds', 60, 'timeout_seconds: is not a known parameter; put it under options'],
    ['steps', [{ tool: 'read_file', args: { path: 'a' } }], 'steps: is not a known parameter; put it under payload'],
  ])('says a top-level %s belongs under its object', async (field, value, message) => {
    const out = await executeTool(tool(), { ...create('misplaced'), [field]: value }, buildContext({ user_id: 'alice' }));
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toContain(message);
  });

  it('creates a job with its tools under options, as jobs/*.yaml writes them', async () => {
    const out = await executeTool(tool(), { ...create('yaml-shaped'), options: { tools: ['read_file'], timeout_seconds: 60, overlap_policy: 'skip' } }, buildContext({ channel: 'cli', user_id: 'alice' }));
    expect(out).toMatchObject({ success: true, output: { job: { name: 'yaml-shaped', tools: ['read_file'] } } });
  });
});
