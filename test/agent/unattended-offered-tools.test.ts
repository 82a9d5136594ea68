import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentRuntime, NEEDS_A_PERSON } from '../../src/agent/runtime.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { listAudit } from '../../src/store/audit.ts';
import { buildContext, nestedContext } from '../../src/tools/context.ts';
import { createJobThroughGate, Human, runNowAsWorker } from '../support/agent-jobs.ts';
import { useTestDatabase } from '../support/db.ts';
import { byPromptTurn, startFakeModel } from '../support/fake-model.ts';

// clarify asks the person at the session: in an unattended run (I12) or a sub-agent (I5) no one answers, so
// offering it only lets the model spend a turn on a call that fails.
const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-offered-person-'));
let model: Awaited<ReturnType<typeof startFakeModel>>;

beforeAll(async () => {
  // a model that asks anyway, as one trained on attended sessions might
  model = await startFakeModel(byPromptTurn((prompt, n) => (n === 0 && prompt.includes('asks') ? { tool_calls: [{ name: 'clarify', arguments: { question: 'which file?' } }] } : { content: 'done' })));
});
afterAll(() => model.close());

const config = () => defaultConfig({
  tools: { workspace, restrict_to_workspace: true, profile: 'minimal', also_allow: ['cronjob'] },
  model: { base_url: model.url, name: 'scripted' },
});

const names = (fns: readonly { name: string }[]) => fns.map((f) => f.name);

describe('an unattended run\'s model', () => {
  it('is not offered clarify, though its grant covers it and todo, a write tool as it is, is offered', async () => {
    const cfg = config();
    const db = database().db;
    const jobId = await createJobThroughGate(db, cfg, new Human(), { name: 'quiet job', payload: { kind: 'agent', prompt: 'quiet job' } });
    const before = model.requests.length;
    const run = await runNowAsWorker(db, cfg, jobId);
    expect(run).toMatchObject({ state: 'succeeded', cron_authorized: true, error: null });
    const offered = (model.requests[before]!.tools ?? []).map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'todo']));
    expect(offered).not.toContain('clarify');
  });

  it('that calls clarify anyway gets its failure back, and the run names it; nothing waits for a person', async () => {
    const cfg = config();
    const db = database().db;
    const jobId = await createJobThroughGate(db, cfg, new Human(), { name: 'asks job', payload: { kind: 'agent', prompt: 'asks job' } });
    const run = await runNowAsWorker(db, cfg, jobId);
    expect(run).toMatchObject({ state: 'succeeded', denials: 0, error: '1 call failed: clarify (business: no one to ask: this run is unattended)' });
    const decisions = await listAudit(db, { run_id: run.id, kind: 'gate.decision' });
    expect(decisions.map((d) => [(d.data as { tool: string }).tool, d.outcome])).toEqual([['clarify', 'allow']]);
  });
});

describe('which tools need a person', () => {
  const db = () => database().db;
  const runtime = (cfg = config()) => createAgentRuntime({ config: cfg, db: db(), tools: builtinTools(cfg, { db: db() }), guard: createGuard(cfg, systemGuardDeps({ dns: false })), chat: null });
  const attended = () => buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' });

  it('is read from the catalog\'s capabilities: every tool declaring one of them is left out unattended, and only those', async () => {
    const tools = builtinTools(config(), { db: db() });
    const asking = tools.allFacts().filter((f) => f.capabilities.some((c) => NEEDS_A_PERSON.has(c))).map((f) => f.name);
    expect(asking).toEqual(['clarify']);
    const rt = runtime();
    const unattended = buildContext({ unattended: true, cron_authorized: true, channel: 'cron', session_key: 'cron:x' });
    const offered = names(await rt.offeredToRun(unattended));
    for (const name of asking) expect(offered).not.toContain(name);
    // the rest of what step 4 lets through for an authorised run is still offered
    expect([...offered, ...asking].sort()).toEqual(names(rt.offered(unattended)).filter((n) => n !== 'cronjob').sort());
  });

  it('attended, clarify is offered to the session\'s model, not to its sub-agents, which return their questions instead', async () => {
    const rt = runtime();
    const top = attended();
    expect(names(await rt.offeredToRun(top))).toContain('clarify');
    const sub = names(await rt.offeredToRun(nestedContext(top)));
    expect(sub).not.toContain('clarify');
    expect(sub).toEqual(names(rt.offered(top)).filter((n) => n !== 'clarify'));
  });
});
