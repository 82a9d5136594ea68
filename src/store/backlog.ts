import { sql } from 'drizzle-orm';
import type { Executor } from './db.ts';

/**
 * What waits in the database now, on its clock, for the metrics: how long the earliest due instant of a live job
 * has waited to be fired (0 when none is due), and how many runs are queued or retrying, due, and not yet taken.
 * Two index lookups (jobs_due_idx, runs_state_idx); the waiting runs are few unless something is wrong.
 */
export async function backlogReading(exec: Executor): Promise<{ behindSeconds: number; waiting: number }> {
  const res = await exec.execute<{ behind: string | null; waiting: number }>(sql`
    select extract(epoch from greatest(interval '0', clock_timestamp() - (select min(next_fire_at) from jobs where removed_at is null))) as behind,
      (select count(*)::int from runs where state in ('queued', 'retrying') and coalesce(not_before, queued_at) <= clock_timestamp()) as waiting`);
  const row = res.rows[0]!;
  return { behindSeconds: row.behind === null ? 0 : Number(row.behind), waiting: Number(row.waiting) };
}
