import { sql } from 'drizzle-orm';
import { instantsDroppedByRemoval } from '../../src/jobs/next-fire.ts';
import { describe, expect, it } from 'vitest';
import { listAudit } from '../../src/store/audit.ts';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { createJob, removeJob } from '../../src/store/jobs.ts';
import { pruneRuns } from '../../src/store/retention.ts';
import { insertRun, listRuns } from '../../src/store/runs.ts';
import { saveTranscript, transcriptOfRun } from '../../src/store/transcripts.ts';
import { FINAL_RUN_STATES, type RunState } from '../../src/store/schema.ts';
import { freshDatabase, useTestDatabase } from '../support/db.ts';
import { aJob } from './fixtures.ts';

const database = useTestDatabase();
const cutoff = new Date('2026-06-01T00:00:00Z');
const day = (n: number) => new Date(cutoff.getTime() + n * 86_400_000);

async function jobWithRuns(runs: readonly [Date, RunState][]) {
  const { db } = database();
  const job = await createJob(db, aJob({ name: `j${Math.random()}` }));
  for (const [at, state] of runs) {
    const run = (await insertRun(db, { job_id: job.id, nominal_at: at }))!;
    await db.execute(sql`update runs set state = ${state} where id = ${run.id}`);
  }
  return job;
}

const statesOf = async (jobId: string) => (await listRuns(database().db, { job_id: jobId, limit: 10_000 }))
  .map((r) => [r.nominal_at.toISOString(), r.state]).sort();

describe('run retention', () => {
  it('deletes ended runs before the cutoff and keeps waiting or running ones, newer ones, and each job\'s newest run', async () => {
    const ended = FINAL_RUN_STATES.map((s, i): [Date, RunState] => [day(-20 + i), s]);
    const job = await jobWithRuns([...ended, [day(-5), 'queued'], [day(-4), 'running'], [day(-3), 'retrying'], [day(2), 'succeeded']]);
    const yearly = await jobWithRuns([[day(-400), 'succeeded'], [day(-35), 'failed']]);

    const report = await pruneRuns(database().db, { before: cutoff, actor: 'retention' });

    expect(await statesOf(job.id)).toEqual([[day(-5), 'queued'], [day(-4), 'running'], [day(-3), 'retrying'], [day(2), 'succeeded']].map(([d, s]) => [(d as Date).toISOString(), s]).sort());
    // its only run after the cutoff is gone, so its newest old run stays: `jobs show` can still say when it last ran
    expect(await statesOf(yearly.id)).toEqual([[day(-35).toISOString(), 'failed']]);
    expect(report.complete).toBe(true);
    expect(report.jobs.find((j) => j.job_id === job.id)).toEqual({ job_id: job.id, runs: FINAL_RUN_STATES.length, transcripts: 0, oldest: day(-20), newest: day(-20 + FINAL_RUN_STATES.length - 1) });
    expect(report.jobs.find((j) => j.job_id === yearly.id)?.runs).toBe(1);
  });

  it('records every deletion in the audit chain, which still verifies', async () => {
    const job = await jobWithRuns([[day(-3), 'succeeded'], [day(-2), 'skipped'], [day(1), 'succeeded']]);
    await pruneRuns(database().db, { before: cutoff, actor: 'alice' });
    const records = (await listAudit(database().db, { job_id: job.id, limit: 100 })).filter((r) => r.kind === 'runs.pruned');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ actor: 'alice', rule: 'retention.runs', outcome: 'deleted' });
    expect(records[0]!.data).toMatchObject({ runs: 2, oldest_nominal_at: day(-3).toISOString(), newest_nominal_at: day(-2).toISOString(), before: cutoff.toISOString() });
    expect((await verifyAudit(database().db)).ok).toBe(true);
  });

  it('a dry run counts the same runs and deletes nothing', async () => {
    const job = await jobWithRuns([[day(-3), 'succeeded'], [day(-2), 'failed'], [day(1), 'succeeded']]);
    const before = await statesOf(job.id);
    const dry = await pruneRuns(database().db, { before: cutoff, actor: 'alice', dryRun: true });
    expect(dry.jobs.find((j) => j.job_id === job.id)).toEqual({ job_id: job.id, runs: 2, transcripts: 0, oldest: day(-3), newest: day(-2) });
    expect(await statesOf(job.id)).toEqual(before);
    expect((await listAudit(database().db, { job_id: job.id, limit: 100 })).filter((r) => r.kind === 'runs.pruned')).toEqual([]);
  });

  it('deletes an agent run\'s transcript with the run, and keeps the transcripts of kept runs and of sessions', async () => {
    const { db } = database();
    const job = await jobWithRuns([[day(-3), 'succeeded'], [day(-2), 'failed'], [day(1), 'succeeded']]);
    const runsOf = (await listRuns(db, { job_id: job.id, limit: 10 })).sort((a, b) => a.nominal_at.getTime() - b.nominal_at.getTime());
    const talk = (runId: string | null, kind: 'run' | 'session' = 'run') => saveTranscript(db, {
      kind, session_key: kind === 'run' ? `cron:${job.id}` : 'cli:alice', memory_scope: '', run_id: runId, job_id: kind === 'run' ? job.id : null,
      execution_id: 'exe_x', prompt: 'p', messages: [{ role: 'user', content: 'p' }],
    });
    for (const r of runsOf) await talk(r.id);
    const session = await talk(null, 'session');
    const dry = await pruneRuns(db, { before: cutoff, actor: 'alice', dryRun: true });
    expect(dry.jobs.find((j) => j.job_id === job.id)?.transcripts).toBe(2);
    const report = await pruneRuns(db, { before: cutoff, actor: 'alice' });
    expect(report.jobs.find((j) => j.job_id === job.id)).toMatchObject({ runs: 2, transcripts: 2 });
    expect(await transcriptOfRun(db, runsOf[0]!.id)).toBeNull();
    expect(await transcriptOfRun(db, runsOf[1]!.id)).toBeNull();
    expect(await transcriptOfRun(db, runsOf[2]!.id)).not.toBeNull();
    expect((await db.execute(sql`select count(*)::int as n from transcripts where id = ${session.id}`)).rows[0]).toEqual({ n: 1 });
    const [record] = (await listAudit(db, { job_id: job.id, limit: 100 })).filter((r) => r.kind === 'runs.pruned');
    expect(record!.data).toMatchObject({ runs: 2, transcripts: 2 });
  });

  it('prunes a removed job\'s runs too', async () => {
    const job = await jobWithRuns([[day(-3), 'succeeded'], [day(-2), 'succeeded']]);
    await removeJob(database().db, job.id, { actor: 'alice' }, instantsDroppedByRemoval);
    await pruneRuns(database().db, { before: cutoff, actor: 'retention' });
    expect(await statesOf(job.id)).toEqual([[day(-2).toISOString(), 'succeeded']]);
  });

  it('deletes a long history in batches, each with its own audit record', async () => {
    const { db } = database();
    const job = await createJob(db, aJob({ name: 'every second' }));
    await db.execute(sql`
      insert into runs (id, job_id, nominal_at, state)
      select 'run_b' || g, ${job.id}, ${day(-1)}::timestamptz - make_interval(secs => g), 'succeeded' from generate_series(1, 12001) g`);
    const report = await pruneRuns(db, { before: cutoff, actor: 'retention' });
    expect(report.jobs.find((j) => j.job_id === job.id)?.runs).toBe(12_000);
    const records = (await listAudit(db, { job_id: job.id, limit: 100, order: 'asc' })).filter((r) => r.kind === 'runs.pruned');
    expect(records.map((r) => r.data.runs)).toEqual([5_000, 5_000, 2_000]);
    expect(await statesOf(job.id)).toEqual([[new Date(day(-1).getTime() - 1000).toISOString(), 'succeeded']]);
  });

  it('stops between batches when asked, and says the pass is incomplete', async () => {
    // a schema of its own: one job, so the first batch is this job's
    const own = await freshDatabase();
    try {
      const job = await createJob(own.db, aJob({ name: 'stopping' }));
      await own.db.execute(sql`
        insert into runs (id, job_id, nominal_at, state)
        select 'run_s' || g, ${job.id}, ${day(-1)}::timestamptz - make_interval(secs => g), 'succeeded' from generate_series(1, 6001) g`);
      let asked = 0;
      const report = await pruneRuns(own.db, { before: cutoff, actor: 'retention', shouldStop: () => asked++ > 0 });
      expect(report.complete).toBe(false);
      expect(report.runs).toBe(5_000);
      expect((await listRuns(own.db, { job_id: job.id, limit: 10_000 })).length).toBe(1_001);
    } finally {
      await own.drop();
    }
  });

  it('deletes recorded tool effects made before the cutoff', async () => {
    const { db } = database();
    await db.execute(sql`insert into tool_effects (idempotency_key, tool, result, created_at) values
      ('old-effect', 'write_file', '{}', ${day(-1)}), ('new-effect', 'write_file', '{}', ${day(1)})`);
    const report = await pruneRuns(db, { before: cutoff, actor: 'retention' });
    expect(report.effects).toBeGreaterThanOrEqual(1);
    const keys = (await db.execute(sql`select idempotency_key from tool_effects where idempotency_key in ('old-effect', 'new-effect')`)).rows.map((r) => r.idempotency_key);
    expect(keys).toEqual(['new-effect']);
  });

  it('keeps the recorded effects of a run still going, however old: its retry replays them', async () => {
    const { db } = database();
    const job = await jobWithRuns([[day(-30), 'retrying']]);
    await db.execute(sql`update runs set queued_at = ${day(-30)} where job_id = ${job.id}`);
    await db.execute(sql`insert into tool_effects (idempotency_key, tool, result, created_at) values ('retry-effect', 'notify', '{}', ${day(-29)})`);
    await pruneRuns(db, { before: cutoff, actor: 'retention' });
    const keys = (await db.execute(sql`select idempotency_key from tool_effects where idempotency_key = 'retry-effect'`)).rows;
    expect(keys).toHaveLength(1);
    await db.execute(sql`update runs set state = 'failed' where job_id = ${job.id}`);
  });
});
