import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { groupCommitAppend, type AuditAppend } from '../../src/store/audit-writer.ts';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { createJob } from '../../src/store/jobs.ts';
import type { Payload } from '../../src/store/schema.ts';
import { getRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

// The daemon's own wiring: one group-commit writer, so run.started may ride with a later record.
const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-run-records-'));
writeFileSync(join(workspace, 'a.txt'), 'a');
const modelCalledAt: number[] = [];
let model: Awaited<ReturnType<typeof startFakeModel>>;
beforeAll(async () => {
  // slow enough that a run.started written only at the end would be stamped well after the call
  model = await startFakeModel(() => {
    modelCalledAt.push(Date.now());
    return { content: 'nothing to do', delayMs: 300 };
  });
});
afterAll(() => model.close());

async function runOf(payload: Payload, config: Config) {
  const db = database().db;
  const job = await createJob(db, { name: 'records', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', payload, tools: [] });
  const run = await manualRun({ db }, job.id, 'test');
  const base = { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1', audit: groupCommitAppend(db) };
  await executeRun({ ...base, agent: daemonAgentRuntime(base) }, run!.id);
  // manualRun's own run.queued comes first; the rest is the execution's
  const records = (await listAudit(db, { run_id: run!.id, order: 'asc' })).filter((r) => r.kind !== 'run.queued');
  return { run: (await getRun(db, run!.id))!, records };
}

describe('a run\'s audit records', () => {
  it('a step run: run.started commits in the same batch as the first decision, just before it', async () => {
    const { run, records } = await runOf({ kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'a.txt' } }] }, defaultConfig({ tools: { workspace } }));
    expect(run.state).toBe('succeeded');
    expect(records.map((r) => r.kind)).toEqual(['run.started', 'gate.decision', 'run.state']);
    const [started, decision, finished] = records;
    expect(decision!.seq).toBe(started!.seq + 1);
    expect(decision!.at.getTime()).toBe(started!.at.getTime());
    expect(finished).toMatchObject({ outcome: 'succeeded' });
    expect((await verifyAudit(database().db)).ok).toBe(true);
  });

  it('a run with no steps still records its start, before its end', async () => {
    const { run, records } = await runOf({ kind: 'steps', steps: [] }, defaultConfig({ tools: { workspace } }));
    expect(run.state).toBe('succeeded');
    expect(records.map((r) => r.kind)).toEqual(['run.started', 'run.state']);
  });

  it('an agent run records its start before it sends anything to the model', async () => {
    const config = defaultConfig({ tools: { workspace }, model: { base_url: model.url, name: 'scripted', api_key: 'sk-run-records-1234' } });
    const { run, records } = await runOf({ kind: 'agent', prompt: 'check the inbox' }, config);
    expect(run.state).toBe('succeeded');
    const started = records.find((r) => r.kind === 'run.started')!;
    expect(modelCalledAt).toHaveLength(1);
    // written at the end it would carry a time after the model's 300 ms answer
    expect(started.at.getTime()).toBeLessThanOrEqual(modelCalledAt[0]! + 50);
  });

  it('a finish that committed but came back as a lost connection is not written again: one run.state record, the run\'s own', async () => {
    const db = database().db;
    const config = defaultConfig({ tools: { workspace } });
    const job = await createJob(db, { name: 'lost-finish', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', payload: { kind: 'steps', steps: [] }, tools: [] });
    const run = await manualRun({ db }, job.id, 'test');
    const writer = groupCommitAppend(db);
    let lost = 0;
    // the finish goes in, then its connection breaks before the answer: what the caller sees is a connection error
    const audit: AuditAppend = Object.assign((e: Parameters<AuditAppend>[0]) => writer(e), {
      ordered: true,
      withChange: async <T>(change: Parameters<NonNullable<AuditAppend['withChange']>>[0], event: Parameters<AuditAppend>[0]) => {
        const out = await writer.withChange!(change, event) as T;
        if (event.kind === 'run.state' && lost++ === 0) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
        return out;
      },
    });
    const base = { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1', audit };
    const result = await executeRun({ ...base, agent: daemonAgentRuntime(base) }, run!.id);
    expect(result).toMatchObject({ kind: 'finished', state: 'succeeded' });
    const ends = (await listAudit(db, { run_id: run!.id, order: 'asc' })).filter((r) => r.kind === 'run.state' || r.kind === 'run.outcome_discarded');
    expect(ends.map((r) => `${r.kind}:${r.outcome}`)).toEqual(['run.state:succeeded']);
    expect((await verifyAudit(db)).ok).toBe(true);
  });
});
