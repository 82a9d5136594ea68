import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LateAgentHost } from '../../src/agent/host.ts';
import { agentChatClient } from '../../src/agent/model-config.ts';
import { createAgentRuntime } from '../../src/agent/runtime.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { gatedCall } from '../../src/session/gated-call.ts';
import { createJob, listJobs } from '../../src/store/jobs.ts';
import { createChildJob } from '../../src/jobs/child-jobs.ts';
import { runAuthorization } from '../../src/jobs/run-authorization.ts';
import { appendAudit, listAudit } from '../../src/store/audit.ts';
import { issueGrant } from '../../src/store/grants.ts';
import { listRuns } from '../../src/store/runs.ts';
import { runs } from '../../src/store/schema.ts';
import { eq } from 'drizzle-orm';
import { effectLedger } from '../../src/store/effects.ts';
import { buildContext, nestedContext, NO_TOOLS } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

const database = useTestDatabase();
let model: Awaited<ReturnType<typeof startFakeModel>>;
beforeAll(async () => {
  // the sub-agent asks for cronjob once, then answers
  model = await startFakeModel((body) => (body.messages.some((m) => m.role === 'tool')
    ? { content: `sub-agent saw: ${body.messages.filter((m) => m.role === 'tool').map((m) => m.content).join(' | ')}` }
    : { tool_calls: [{ name: 'cronjob', arguments: { action: 'list' } }] }));
});
afterAll(() => model.close());

function setup() {
  const db = database().db;
  const config = defaultConfig({ model: { base_url: model.url, name: 'scripted' } });
  const agentHost = new LateAgentHost();
  const enqueued: string[] = [];
  const tools = builtinTools(config, { db, agentHost, enqueue: async (id) => void enqueued.push(id) });
  const runtime = createAgentRuntime({ config, db, tools, guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config), humanApprover: null });
  agentHost.bind(runtime);
  return { db, tools, enqueued, runtime };
}
const alice = (extra: Parameters<typeof buildContext>[0] = {}) => buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice', ...extra });
const run = (name: string, args: Record<string, unknown>, ctx = alice(), opts = {}) => {
  const { tools } = setup();
  return executeTool(tools.get(name)!, args, ctx, opts);
};

describe('task', () => {
  it('creates a background agent task: a child job and a queued run on the queue', async () => {
    const { tools, enqueued, db } = setup();
    const out = await executeTool(tools.get('task')!, { action: 'create', title: 'tidy', prompt: 'tidy the notes' }, alice());
    expect(out.success, out.error).toBe(true);
    const { id, run_id } = out.output as { id: string; run_id: string };
    expect(enqueued).toEqual([run_id]);
    const job = (await listJobs(db)).find((j) => j.id === id)!;
    expect(job).toMatchObject({ origin: 'task', owner: 'alice', parent_job_id: null, payload: { kind: 'agent', prompt: 'tidy the notes' }, next_fire_at: null });
    const listed = await executeTool(tools.get('task')!, { action: 'list' }, alice());
    expect((listed.output as { tasks: { id: string }[] }).tasks.map((t) => t.id)).toContain(id);
    const shown = await executeTool(tools.get('task')!, { action: 'show', id }, alice());
    expect(shown.output).toMatchObject({ task: { id, last_run: { id: run_id, state: 'queued' } } });
  });

  it("a task's run is due at the database clock's now, not at a skewed host clock's", async () => {
    const { tools, db } = setup();
    vi.useFakeTimers({ toFake: ['Date'] });
    let out;
    try {
      vi.setSystemTime(new Date('2031-01-01T00:00:00Z'));
      out = await executeTool(tools.get('task')!, { action: 'create', prompt: 'clock check' }, alice());
    } finally {
      vi.useRealTimers();
    }
    const { run_id } = out.output as { run_id: string };
    const [run] = await db.select().from(runs).where(eq(runs.id, run_id));
    expect(Math.abs(run!.nominal_at.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('cancels a task: the job is removed and its queued run cancelled', async () => {
    const { tools, db } = setup();
    const { id, run_id } = (await executeTool(tools.get('task')!, { action: 'create', prompt: 'never mind' }, alice())).output as { id: string; run_id: string };
    const out = await executeTool(tools.get('task')!, { action: 'cancel', id }, alice());
    expect(out).toMatchObject({ success: true, output: { cancelled_runs: 1 } });
    expect((await listRuns(db, { job_id: id })).find((r) => r.id === run_id)?.state).toBe('cancelled');
  });

  it('another user cannot see or cancel it', async () => {
    const { tools } = setup();
    const { id } = (await executeTool(tools.get('task')!, { action: 'create', prompt: 'private' }, alice())).output as { id: string };
    const out = await executeTool(tools.get('task')!, { action: 'cancel', id }, buildContext({ user_id: 'mallory' }));
    expect(out).toMatchObject({ success: false, errorKind: 'business' });
  });

  it.each([
    [{ action: 'create' }, /prompt/],
    [{ action: 'explode' }, /action/],
    [{ action: 'show' }, /id/],
    [{ action: 'list', extra: 1 }, /extra/],
  ])('names the bad argument in %j', async (args, field) => {
    const out = await run('task', args);
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toMatch(field);
  });

  it('a replayed create does not make a second task', async () => {
    const { tools, db } = setup();
    const ledger = effectLedger(db);
    const ctx = alice({ trace_id: `replay-${Date.now()}`, tool: 'task', params: { action: 'create', prompt: 'once only' } });
    const first = await executeTool(tools.get('task')!, { action: 'create', prompt: 'once only' }, ctx, { ledger });
    const again = await executeTool(tools.get('task')!, { action: 'create', prompt: 'once only' }, { ...ctx, is_replay: true }, { ledger });
    expect(again).toEqual(first);
    expect((await listJobs(db)).filter((j) => j.payload.kind === 'agent' && j.payload.prompt === 'once only')).toHaveLength(1);
  });

  it('is refused in an unattended run without a grant (unattended_policy deny)', async () => {
    const { tools, db, runtime } = setup();
    const ctx = buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_x' });
    const out = await gatedCall(runtime.gateFor(ctx), tools, { tool: 'task', args: { action: 'create', prompt: 'sneaky' } }, ctx, 0);
    expect(out.decision).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.policy_deny' });
    expect((await listJobs(db)).find((j) => j.payload.kind === 'agent' && j.payload.prompt === 'sneaky')).toBeUndefined();
  });
});

describe('workflow', () => {
  it('creates an ordered step list that runs through the queue, and runs it again on request', async () => {
    const { tools, enqueued } = setup();
    const steps = [{ tool: 'read_file', args: { path: 'a' } }, { tool: 'write_file', args: { path: 'b', content: 'c' } }];
    const created = await executeTool(tools.get('workflow')!, { action: 'create', name: 'two steps', steps }, alice());
    expect(created.success, created.error).toBe(true);
    const { id } = created.output as { id: string };
    const shown = await executeTool(tools.get('workflow')!, { action: 'show', id }, alice());
    expect((shown.output as { workflow: { steps: unknown } }).workflow.steps).toEqual(steps);
    // its first run still waits, and a workflow's overlap policy is skip: a second one is refused, saying why
    const early = await executeTool(tools.get('workflow')!, { action: 'run', id }, alice());
    expect(early).toMatchObject({ success: false, error: expect.stringMatching(/overlap/) });
    const [first] = await listRuns(database().db, { job_id: id });
    await database().db.update(runs).set({ state: 'succeeded' }).where(eq(runs.id, first!.id));
    const again = await executeTool(tools.get('workflow')!, { action: 'run', id }, alice());
    expect(again.success, again.error).toBe(true);
    expect(enqueued).toHaveLength(2);
  });

  it('refuses at creation a step its creator may not use, since every run would refuse it (I5), and creates nothing', async () => {
    const { tools, db, enqueued } = setup();
    const before = (await listJobs(db)).length;
    const steps = [{ tool: 'read_file', args: { path: 'a' } }, { tool: 'write_file', args: { path: 'b', content: 'c' } }];
    const out = await executeTool(tools.get('workflow')!, { action: 'create', name: 'too much', steps }, alice({ allowed_tools: ['read_file', 'list_dir'] }));
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toContain('payload.steps[1] (write_file): not among the tools this child job may use [read_file, list_dir]');
    expect(out.error).not.toContain('steps[0]');
    expect((await listJobs(db)).length).toBe(before);
    expect(enqueued).toEqual([]);
  });

  it('names a malformed step', async () => {
    const out = await run('workflow', { action: 'create', name: 'bad', steps: [{ tool: '' }] });
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toMatch(/payload\.steps\.0\.tool/);
  });
});

describe('child job limits (tools.child_jobs)', () => {
  it('one execution creates at most max_per_execution child jobs; another execution has its own count', async () => {
    const db = database().db;
    const config = defaultConfig({ tools: { child_jobs: { max_per_execution: 2 } } });
    const tools = builtinTools(config, { db });
    const ctx = alice();
    for (const prompt of ['one', 'two']) expect((await executeTool(tools.get('task')!, { action: 'create', prompt }, ctx)).success).toBe(true);
    const third = await executeTool(tools.get('task')!, { action: 'create', prompt: 'three' }, ctx);
    expect(third).toMatchObject({ success: false, errorKind: 'business', error: expect.stringMatching(/created 2 child jobs \(.*\), the most tools\.child_jobs\.max_per_execution allows/) });
    expect((await executeTool(tools.get('task')!, { action: 'create', prompt: 'elsewhere' }, alice())).success).toBe(true);
  });

  it('sub-agents and later attempts of one run share its count: delegating does not start a fresh allowance', async () => {
    const db = database().db;
    const base = { owner: 'alice', created_by: 'alice', schedule: 'at 2099-01-01T00:00:00Z', timezone: 'UTC', payload: { kind: 'agent' as const, prompt: 'p' }, tools: [], paused: false };
    const scheduled = await createJob(db, { ...base, name: 'fans-out' });
    // a daemon run: its trace is the run id, the same in every attempt
    const attempt = () => buildContext({ unattended: true, channel: 'cron', user_id: 'alice', session_key: `cron:${scheduled.id}`, trace_id: 'run_fanout1' });
    const limits = { childLimits: { max_depth: 3, max_per_execution: 3 } };
    const input = (name: string) => ({ origin: 'task' as const, name, payload: { kind: 'agent' as const, prompt: name } });
    const first = attempt();
    await createChildJob({ db, ...limits }, input('own'), first);
    // two delegate_task sub-agents of that attempt (nested contexts extend the trace), then a retry of the run
    await createChildJob({ db, ...limits }, input('sub-a'), nestedContext({ ...first, idempotency_key: 'aaaaaaaaaaaaaaaaaaaa' }));
    await createChildJob({ db, ...limits }, input('sub-b'), nestedContext({ ...first, idempotency_key: 'bbbbbbbbbbbbbbbbbbbb' }));
    await expect(createChildJob({ db, ...limits }, input('retry'), attempt())).rejects.toMatchObject({ kind: 'business', message: expect.stringMatching(/this run has created 3 child jobs/) });
    await expect(createChildJob({ db, ...limits }, input('sub-c'), nestedContext({ ...first, idempotency_key: 'cccccccccccccccccccc' }))).rejects.toMatchObject({ kind: 'business' });
  });

  it('a child job runs within its creator\'s approved limits: its timeout, its retries and its agent model', async () => {
    const db = database().db;
    const maker = await createJob(db, {
      name: 'tight', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'agent', prompt: 'p', model: 'small-model' }, timeout_seconds: 2, max_retries: 1,
    });
    const ctx = buildContext({ unattended: true, channel: 'cron', user_id: 'alice', session_key: `cron:${maker.id}` });
    const { job } = await createChildJob({ db }, { origin: 'task', name: 'child', payload: { kind: 'agent', prompt: 'q' } }, ctx);
    expect(job).toMatchObject({ timeout_seconds: 2, max_retries: 1, payload: { kind: 'agent', prompt: 'q', model: 'small-model' } });
  });

  it('child jobs nest at most max_depth deep below a scheduled job', async () => {
    const db = database().db;
    const base = { owner: 'alice', created_by: 'alice', schedule: 'at 2099-01-01T00:00:00Z', timezone: 'UTC', payload: { kind: 'agent' as const, prompt: 'p' }, tools: [], paused: false };
    const root = await createJob(db, { ...base, name: 'root' });
    const first = await createJob(db, { ...base, name: 'first', origin: 'task', parent_job_id: root.id });
    const second = await createJob(db, { ...base, name: 'second', origin: 'task', parent_job_id: first.id });
    const runOf = (jobId: string) => buildContext({ unattended: true, channel: 'cron', user_id: 'alice', session_key: `cron:${jobId}` });
    const input = { origin: 'task' as const, name: 'deeper', payload: { kind: 'agent' as const, prompt: 'q' } };
    // a child of `second` would be depth 3
    await expect(createChildJob({ db, childLimits: { max_depth: 2, max_per_execution: 20 } }, input, runOf(second.id))).rejects.toMatchObject({ kind: 'business', message: expect.stringMatching(/nest at most 2 deep/) });
    await expect(createChildJob({ db, childLimits: { max_depth: 3, max_per_execution: 20 } }, input, runOf(second.id))).resolves.toMatchObject({ job: { parent_job_id: second.id } });
    // directly below the scheduled job is depth 1
    await expect(createChildJob({ db, childLimits: { max_depth: 1, max_per_execution: 20 } }, input, runOf(root.id))).resolves.toMatchObject({ job: { parent_job_id: root.id } });
  });
});

describe('a child job belongs to the job run or session that made it', () => {
  it('another job\'s run, or an attended session of the same user, can neither run, show nor list it (it would lend its maker\'s grant)', async () => {
    const { tools, db } = setup();
    const base = { owner: 'alice', created_by: 'alice', schedule: 'at 2099-01-01T00:00:00Z', timezone: 'UTC', payload: { kind: 'agent' as const, prompt: 'p' }, tools: [], paused: false };
    const maker = await createJob(db, { ...base, name: 'maker-k' });
    const other = await createJob(db, { ...base, name: 'other-j' });
    const runOf = (jobId: string) => buildContext({ unattended: true, cron_authorized: true, channel: 'cron', user_id: 'alice', session_key: `cron:${jobId}` });
    const made = await executeTool(tools.get('workflow')!, { action: 'create', name: 'w', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, runOf(maker.id));
    expect(made.success, made.error).toBe(true);
    const id = (made.output as { id: string }).id;
    for (const ctx of [runOf(other.id), alice()]) {
      for (const action of ['run', 'show']) {
        const out = await executeTool(tools.get('workflow')!, { action, id }, ctx);
        expect(out, `${action} from ${ctx.session_key}`).toMatchObject({ success: false, error: expect.stringContaining(`no workflow ${id} made here`) });
      }
      const listed = await executeTool(tools.get('workflow')!, { action: 'list' }, ctx);
      expect((listed.output as { workflows: { id: string }[] }).workflows.map((w) => w.id)).not.toContain(id);
    }
    // its maker's later runs still can (a run again waits for the first: overlap skip)
    expect(await executeTool(tools.get('workflow')!, { action: 'show', id }, runOf(maker.id))).toMatchObject({ success: true });
    expect((await executeTool(tools.get('workflow')!, { action: 'run', id }, runOf(maker.id))).error).toMatch(/overlap\.skip\.busy/);
  });
});

describe('who made a child job', () => {
  it('a daemon run made it on behalf of the job\'s owner: created_by and the records\' actor are the daemon, the owner stays', async () => {
    const db = database().db;
    const parent = await createJob(db, { owner: 'alice', created_by: 'alice', name: 'maker', schedule: 'at 2099-01-01T00:00:00Z', timezone: 'UTC', payload: { kind: 'agent', prompt: 'p' }, tools: [], paused: false });
    const ctx = buildContext({ unattended: true, channel: 'cron', user_id: 'alice', session_key: `cron:${parent.id}` });
    const { job, run } = await createChildJob({ db }, { origin: 'task', name: 'made-by-a-run', payload: { kind: 'agent', prompt: 'q' } }, ctx);
    expect(job).toMatchObject({ owner: 'alice', created_by: 'daemon' });
    const records = await listAudit(db, { job_id: job.id, order: 'asc' });
    expect(records.map((r) => [r.kind, r.actor])).toEqual([['job.created', 'daemon'], ['run.queued', 'daemon']]);
    expect(records[1]!.run_id).toBe(run.id);
  });
});

describe('the grant a child job inherits', () => {
  it('is the one its creating run started with: a grant issued since covers the definition, not that run', async () => {
    const db = database().db;
    const parent = await createJob(db, { owner: 'alice', created_by: 'alice', name: 'grant-parent', schedule: 'at 2099-01-01T00:00:00Z', timezone: 'UTC', payload: { kind: 'agent', prompt: 'p' }, tools: [], paused: false });
    const first = await issueGrant(db, { job_id: parent.id, approval_id: 'apr_1', approver: 'alice', channel: 'cli' });
    const started = (execution: string, grant: string) => appendAudit(db, { kind: 'run.started', actor: 'daemon', job_id: parent.id, execution_id: execution, data: { grant_id: grant, cron_authorized: true } });
    await started('exec-old', first.id);
    // the grant is replaced while that run works (a second human approval of the same definition)
    const second = await issueGrant(db, { job_id: parent.id, approval_id: 'apr_2', approver: 'bob', channel: 'cli' });
    await started('exec-new', second.id);
    const ctx = (execution_id: string) => buildContext({ unattended: true, cron_authorized: true, channel: 'cron', user_id: 'alice', session_key: `cron:${parent.id}`, execution_id });
    const input = { origin: 'task' as const, name: 'child', payload: { kind: 'agent' as const, prompt: 'q' } };
    const fromOld = await createChildJob({ db }, input, ctx('exec-old'));
    expect(fromOld.job.parent_grant_id).toBeNull();
    expect(await runAuthorization(db, fromOld.job)).toMatchObject({ cron_authorized: false, rule: 'grant.parent_changed' });
    const fromNew = await createChildJob({ db }, input, ctx('exec-new'));
    expect(await runAuthorization(db, fromNew.job)).toMatchObject({ cron_authorized: true, rule: 'grant.inherited', grant_id: second.id });
  });
});

describe('spawn_task', () => {
  it('starts a background sub-run with at most the parent tool set (I5)', async () => {
    const { tools, db } = setup();
    const parent = alice({ allowed_tools: ['read_file', 'write_file'] });
    const out = await executeTool(tools.get('spawn_task')!, { prompt: 'summarise', tools: ['write_file', 'exec'] }, parent);
    expect(out.success, out.error).toBe(true);
    const job = (await listJobs(db)).find((j) => j.id === (out.output as { job_id: string }).job_id)!;
    expect(job).toMatchObject({ origin: 'spawn_task', tools: ['write_file'], parent_execution_id: parent.execution_id });
    const none = await executeTool(tools.get('spawn_task')!, { prompt: 'x', tools: ['exec'] }, parent);
    expect((none.output as { tools: string[] }).tools).toEqual([NO_TOOLS]);
  });

  it('rejects an empty prompt naming the field', async () => {
    const out = await run('spawn_task', { prompt: '' });
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toMatch(/prompt/);
  });
});

describe('delegate_task', () => {
  it('runs a nested sub-agent now; its call needing a human is refused at step 11 (I5)', async () => {
    const out = await run('delegate_task', { prompt: 'list the jobs' });
    expect(out.success, out.error).toBe(true);
    expect(out.output).toMatchObject({ status: 'completed', refusals: 1 });
    expect(String((out.output as { answer: string }).answer)).toMatch(/approval\.nested/);
  });

  it('inherits unattended: a nested DANGEROUS call in an unattended parent is refused at step 4', async () => {
    const { tools, runtime } = setup();
    const parent = buildContext({ unattended: true, cron_authorized: true, channel: 'cron' });
    const signal = new AbortController().signal;
    // the parent run, as the daemon hosts a steps run
    const out = await runtime.hosting(parent, { signal }, () => executeTool(tools.get('delegate_task')!, { prompt: 'list the jobs' }, parent));
    expect(String((out.output as { answer: string }).answer)).toMatch(/unattended\.dangerous/);
  });

  it('is unavailable without an agent runtime', async () => {
    const db = database().db;
    const config = defaultConfig();
    const tool = builtinTools(config, { db }).get('delegate_task')!;
    expect(await executeTool(tool, { prompt: 'x' }, alice())).toMatchObject({ success: false, errorKind: 'unavailable' });
  });

  it.each(['delegate_task', 'spawn_task'])('%s is not ready, so not offered, without a model endpoint (I10)', (name) => {
    const db = database().db;
    const tools = builtinTools(defaultConfig(), { db });
    expect(tools.get(name)!.readinessDetail()).toEqual([false, 'missing config: model.base_url']);
    expect(tools.facts(name)?.ready).toBe(false);
  });
});

describe('reserved names', () => {
  it.each(['agents_list', 'agents_route'])('%s is never offered and calling it is unavailable', async (name) => {
    const { tools, runtime } = setup();
    const ctx = alice();
    expect(runtime.offered(ctx).map((t) => t.name)).not.toContain(name);
    const out = await gatedCall(runtime.gateFor(ctx), tools, { tool: name, args: {} }, ctx, 0);
    expect(out.result).toMatchObject({ success: false, errorKind: 'unavailable' });
    expect(out.result.error).toMatch(/reserved and not implemented/);
  });
});
