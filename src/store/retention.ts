import { sql, type SQL } from 'drizzle-orm';
import { appendInTransaction } from './audit.ts';
import type { Executor } from './db.ts';
import { FINAL_RUN_STATES, oneOf } from './schema.ts';

/** Rows one transaction deletes: long enough to be cheap, short enough not to hold locks for long. */
const BATCH = 5_000;
const JOB_PAGE = 500;

export interface PruneOptions {
  /** Runs whose instant is before this go (ended ones only). */
  readonly before: Date;
  /** Count what would go and change nothing. */
  readonly dryRun?: boolean;
  /** Who prunes, for the audit record: `retention` for the daemon, the person for the CLI. */
  readonly actor: string;
  /** The OS account and host it really runs as (actor may be only what --as said). */
  readonly from?: { readonly os_account: string; readonly host: string };
  /** Asked between batches: a daemon that is stopping leaves the rest for the next pass. */
  readonly shouldStop?: () => boolean;
  /** Told of each page of jobs checked and each batch committed: a long pass is slow, not hung (the daemon's watch). */
  readonly progress?: (what: string, n?: number) => void;
}

export interface JobPruned {
  readonly job_id: string;
  readonly runs: number;
  readonly transcripts: number;
  readonly oldest: Date;
  readonly newest: Date;
}

export interface PruneReport {
  readonly before: Date;
  readonly dryRun: boolean;
  readonly jobs: readonly JobPruned[];
  readonly runs: number;
  readonly transcripts: number;
  readonly effects: number;
  /** false when shouldStop ended the pass early. */
  readonly complete: boolean;
}

// Ended runs only, and never a job's newest run: `jobs show` still says when a yearly job last ran.
// Walks runs_job_nominal_unique, so no index on finished_at has to be kept up by every finish.
const FINAL = oneOf(FINAL_RUN_STATES);
const doomed = (jobId: string | SQL, before: Date, limit: number) => sql`
  select r.id, r.nominal_at from runs r
  where r.job_id = ${jobId} and r.nominal_at < ${before} and r.state in (${FINAL})
    and r.nominal_at < (select max(n.nominal_at) from runs n where n.job_id = ${jobId})
  order by r.nominal_at limit ${limit}`;

/** Runs deleted (or to be), their instants, and the agent runs' transcripts that went with them. */
type Span = { n: number; oldest: Date | null; newest: Date | null; transcripts: number };
const spanOf = (row: Record<string, unknown> | undefined): Span => ({
  n: Number(row?.n ?? 0),
  oldest: row?.oldest ? new Date(row.oldest as string) : null,
  newest: row?.newest ? new Date(row.newest as string) : null,
  transcripts: Number(row?.transcripts ?? 0),
});

async function countDoomed(exec: Executor, jobId: string, before: Date): Promise<Span> {
  const res = await exec.execute(sql`
    with d as (${doomed(jobId, before, 2_147_483_647)})
    select count(*)::int as n, min(d.nominal_at) as oldest, max(d.nominal_at) as newest,
      (select count(*)::int from transcripts t where t.kind = 'run' and t.run_id in (select id from d)) as transcripts from d`);
  return spanOf(res.rows[0]);
}

/** One batch of one job's old runs, and its audit record, in one transaction: a deletion nobody recorded cannot commit. */
async function deleteBatch(exec: Executor, jobId: string, before: Date, actor: string, from: PruneOptions['from']): Promise<Span> {
  return exec.transaction(async (tx) => {
    // a run's transcript goes with it: an agent job that runs every minute would otherwise keep every conversation for ever
    const res = await tx.execute(sql`
      with gone as (delete from runs where id in (select id from (${doomed(jobId, before, BATCH)}) d) returning id, nominal_at),
        talk as (delete from transcripts where kind = 'run' and run_id in (select id from gone) returning 1)
      select count(*)::int as n, min(nominal_at) as oldest, max(nominal_at) as newest, (select count(*)::int from talk) as transcripts from gone`);
    const span = spanOf(res.rows[0]);
    if (span.n > 0) {
      await appendInTransaction(tx, [{
        kind: 'runs.pruned', actor, job_id: jobId, outcome: 'deleted', rule: 'retention.runs',
        reason: `ended runs with instants before ${before.toISOString()} were deleted under the run retention`,
        data: { runs: span.n, transcripts: span.transcripts, oldest_nominal_at: span.oldest?.toISOString(), newest_nominal_at: span.newest?.toISOString(), before: before.toISOString(), ...(from ? { pruned_from: from } : {}) },
      }]);
    }
    return span;
  });
}

/** Jobs with something to prune, a page at a time over every job: one query per page, not a transaction per job. */
async function* jobsWithOldRuns(exec: Executor, before: Date, progress: PruneOptions['progress']): AsyncGenerator<string> {
  let after = '';
  for (;;) {
    const page = await exec.execute(sql`
      with page as (select id from jobs where id > ${after} order by id limit ${JOB_PAGE})
      select p.id, exists (${doomed(sql`p.id`, before, 1)}) as has_old from page p order by p.id`);
    progress?.('jobs checked', page.rows.length);
    for (const row of page.rows) if (row.has_old) yield row.id as string;
    if (page.rows.length < JOB_PAGE) return;
    after = page.rows[page.rows.length - 1]!.id as string;
  }
}

/**
 * Deletes ended runs older than the cutoff, job by job (removed jobs too), with their transcripts, each
 * batch with a `runs.pruned` audit record, and the recorded effects of tool calls
 * made before it and before every run still going (a retry replays them). The audit chain is never pruned.
 */
export async function pruneRuns(exec: Executor, opts: PruneOptions): Promise<PruneReport> {
  const out: JobPruned[] = [];
  const stop = opts.shouldStop ?? (() => false);
  let complete = true;
  for await (const jobId of jobsWithOldRuns(exec, opts.before, opts.progress)) {
    let total: Span = { n: 0, oldest: null, newest: null, transcripts: 0 };
    if (opts.dryRun) total = await countDoomed(exec, jobId, opts.before);
    else {
      for (;;) {
        if (stop()) { complete = false; break; }
        const span = await deleteBatch(exec, jobId, opts.before, opts.actor, opts.from);
        opts.progress?.('run batches deleted');
        total = { n: total.n + span.n, oldest: total.oldest ?? span.oldest, newest: span.newest ?? total.newest, transcripts: total.transcripts + span.transcripts };
        if (span.n < BATCH) break;
      }
    }
    if (total.n > 0) out.push({ job_id: jobId, runs: total.n, transcripts: total.transcripts, oldest: total.oldest!, newest: total.newest! });
    if (!complete) break;
  }
  let effects = 0;
  if (complete && !stop()) {
    // a run still going may replay its first attempt's effects on a retry, however old: those stay
    const oldest = sql`least(${opts.before}::timestamptz, (select min(queued_at) from runs where state in ('queued', 'running', 'retrying')))`;
    if (opts.dryRun) effects = Number((await exec.execute(sql`select count(*)::int as n from tool_effects where created_at < ${oldest}`)).rows[0]?.n ?? 0);
    else {
      for (;;) {
        if (stop()) { complete = false; break; }
        const res = await exec.execute(sql`
          with gone as (delete from tool_effects where idempotency_key in (
            select idempotency_key from tool_effects where created_at < ${oldest} limit ${BATCH}) returning 1)
          select count(*)::int as n from gone`);
        const n = Number(res.rows[0]?.n ?? 0);
        opts.progress?.('effect batches deleted');
        effects += n;
        if (n < BATCH) break;
      }
    }
  }
  return { before: opts.before, dryRun: Boolean(opts.dryRun), jobs: out, runs: out.reduce((s, j) => s + j.runs, 0), transcripts: out.reduce((s, j) => s + j.transcripts, 0), effects, complete };
}
