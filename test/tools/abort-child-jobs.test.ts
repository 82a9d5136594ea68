import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { listJobs } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import { spawnTaskTool } from '../../src/tools/catalog/spawn-task.ts';
import { taskTool } from '../../src/tools/catalog/task.ts';
import { workflowTool } from '../../src/tools/catalog/workflow.ts';
import { buildContext } from '../../src/tools/context.ts';
import type { JobServiceDeps } from '../../src/jobs/service.ts';
import type { Tool } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

type Make = (config: ReturnType<typeof defaultConfig>, deps: JobServiceDeps) => Tool;

/**
 * The call is cancelled while its child job is being created: inside the creating transaction (when it reads
 * the clock), so the job exists once it commits and nothing is left to chance.
 */
async function cancelledWhileCreating(make: Make, params: Record<string, unknown>) {
  const db = database().db;
  const controller = new AbortController();
  const enqueued: string[] = [];
  const tool = make(defaultConfig({ model: { base_url: 'http://model.test/v1', name: 'm' } }), {
    db,
    now: () => {
      controller.abort(new Error('timeout'));
      return new Date();
    },
    enqueue: async (id) => { enqueued.push(id); },
  });
  const ctx = buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' });
  const before = new Set((await listJobs(db, { includeRemoved: true })).map((j) => j.id));
  const result = await tool.execute(params, ctx, { signal: controller.signal });
  const made = (await listJobs(db, { includeRemoved: true })).filter((j) => !before.has(j.id));
  return { result, made, enqueued, db };
}

describe('a child job made while its call was cancelled does not outlive the call', () => {
  it.each([
    ['task', taskTool as Make, { action: 'create', prompt: 'tidy the notes' }],
    ['spawn_task', spawnTaskTool as Make, { prompt: 'summarise' }],
    ['workflow', workflowTool as Make, { action: 'create', name: 'two steps', steps: [{ tool: 'read_file', args: { path: 'a' } }] }],
  ])('%s removes the job it made and cancels its run, which never reaches the queue', async (_name, make, params) => {
    const { result, made, enqueued, db } = await cancelledWhileCreating(make, params);
    expect(result).toMatchObject({ success: false, errorKind: 'timeout' });
    // a worker could have started it before the removal otherwise
    expect(enqueued).toEqual([]);
    expect(made).toHaveLength(1);
    expect(made[0]!.removed_at).not.toBeNull();
    const runs = await listRuns(db, { job_id: made[0]!.id });
    expect(runs.map((r) => r.state)).not.toContain('queued');
  });

  it('task creates nothing when its call was cancelled before it started', async () => {
    const db = database().db;
    const before = (await listJobs(db, { includeRemoved: true })).length;
    const controller = new AbortController();
    controller.abort(new Error('shutdown'));
    const tool = taskTool(defaultConfig(), { db });
    const r = await tool.execute({ action: 'create', prompt: 'late' }, buildContext({ user_id: 'alice' }), { signal: controller.signal });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(r.error).toMatch(/shutdown/);
    expect((await listJobs(db, { includeRemoved: true })).length).toBe(before);
  });
});

describe('a child job made by a call that was not cancelled', () => {
  it('is handed to the queue once made', async () => {
    const db = database().db;
    const enqueued: string[] = [];
    const tool = taskTool(defaultConfig(), { db, enqueue: async (id) => { enqueued.push(id); } });
    const r = await tool.execute({ action: 'create', prompt: 'tidy' }, buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' }), { signal: new AbortController().signal });
    expect(r.success).toBe(true);
    expect(enqueued).toHaveLength(1);
    expect((await listRuns(db, { states: ['queued'] })).map((run) => run.id)).toContain(enqueued[0]);
  });
});
