import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { answerApproval, createApproval } from '../../src/store/approvals.ts';
import { createJob, listJobs } from '../../src/store/jobs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { useTestDatabase } from '../support/db.ts';

// An `at` instant checked before the person was asked, and passed while they read the request: the refusal
// says that, with both times; not "an at instant in the past?", which blames the file the person approved.
const database = useTestDatabase();
const config = defaultConfig();
const ctx = buildContext({ channel: 'cli', user_id: 'alice', approval_source: 'human' });

/** A request answered "once" by bob: what the gate hands the tool after a person's approval. */
async function answered(args: Record<string, unknown>) {
  const request = await createApproval(database().db, {
    call_hash: `hash-${String(args.name ?? args.id)}`, tool: 'cronjob', args, risk: 'dangerous', channel: 'cli', user_id: 'alice',
    expires_at: new Date(Date.now() + 60_000),
  });
  const r = await answerApproval(database().db, { id: request.id, call_hash: request.call_hash, answer: 'once', answered_by: 'bob' });
  if (!r.ok) throw new Error(r.reason);
  return { row: r.approval, approval: { approval: { approval_source: 'human' as const, approval_id: request.id, approver: 'bob' } } };
}

/** The cronjob tool on a scheduler clock `ms` ahead: the instant has passed by the time the answer is used. */
const later = (ms: number) => builtinTools(config, { db: database().db, now: () => new Date(Date.now() + ms) }).get('cronjob')!;

describe('an "at" instant that passes while the request waits for a person', () => {
  it('create: refused saying the instant passed while it waited, with the instant, the time asked and the time answered', async () => {
    const at = new Date(Date.now() + 60_000).toISOString();
    const args = { action: 'create', name: 'soon', schedule: `at ${at}`, payload: { kind: 'agent', prompt: 'x' } };
    const { row, approval } = await answered(args);
    const out = await executeTool(later(120_000), args, ctx, approval);
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toBe(`schedule: its instant ${new Date(at).toISOString()} passed while the request waited for approval (asked ${row.created_at.toISOString()}, `
      + `answered ${row.answered_at!.toISOString()}); nothing was created: give a later instant and ask again`);
    expect((await listJobs(database().db)).map((j) => j.name)).not.toContain('soon');
  });

  it('update: the same, and the job keeps its schedule', async () => {
    const job = await createJob(database().db, {
      name: 'to-move', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false, payload: { kind: 'agent', prompt: 'x' },
    });
    const at = new Date(Date.now() + 60_000).toISOString();
    const args = { action: 'update', id: job.id, schedule: `at ${at}` };
    const { approval } = await answered(args);
    const out = await executeTool(later(120_000), args, ctx, approval);
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toMatch(/^schedule: its instant \S+ passed while the request waited for approval \(asked \S+, answered \S+\); nothing was changed/);
    expect((await listJobs(database().db)).find((j) => j.id === job.id)?.schedule).toBe('0 3 * * *');
  });

  it('without a person\'s approval (nobody was waited for) the instant is simply in the past', async () => {
    const at = new Date(Date.now() + 60_000).toISOString();
    const out = await executeTool(later(120_000), { action: 'create', name: 'auto', schedule: `at ${at}`, payload: { kind: 'agent', prompt: 'x' } }, ctx, { approval: { approval_source: 'auto' } });
    expect(out.error).toMatch(/^schedule: has no instant after now \(an "at" instant in the past\?\)/);
  });
});
