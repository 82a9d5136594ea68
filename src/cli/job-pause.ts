import { sql } from 'drizzle-orm';
import type { Executor } from '../store/db.ts';
import type { JobRow } from '../store/schema.ts';
import { redactText } from '../util/redact.ts';

/** Who paused a paused job and when: the job.paused record that paused it (the row keeps only the note). */
export interface PausedBy {
  readonly by: string | null;
  readonly at: Date;
}

/**
 * Per paused job, who paused it and when, in one query: its newest job.paused record that paused it (a second pause
 * that only changed the note, data.note_changed, is not when it was paused). The name is free text, shown redacted (I11).
 */
export async function pausesOf(exec: Executor, jobs: readonly JobRow[]): Promise<Map<string, PausedBy>> {
  const ids = [...new Set(jobs.filter((j) => j.paused && !j.removed_at).map((j) => j.id))];
  if (ids.length === 0) return new Map();
  // a backward walk of each job's audit_events_job_idx range, stopping at its first pause
  const { rows } = await exec.execute<{ id: string; actor: string | null; at: string | Date }>(sql`
    select j.id, p.actor, p.at from unnest(array[${sql.join(ids.map((id) => sql`${id}`), sql`, `)}]::text[]) as j(id)
    cross join lateral (select a.actor, a.at from audit_events a where a.job_id = j.id and a.kind = 'job.paused'
      and coalesce(a.data->>'note_changed', 'false') <> 'true' order by a.seq desc limit 1) p`);
  return new Map(rows.map((r) => [r.id, { by: r.actor === null ? null : redactText(r.actor), at: new Date(r.at) }]));
}

/** A job row as --json gives it: who paused it and when beside `paused` (null when it is not paused, or no record says). */
export const pauseFields = (job: Pick<JobRow, 'id' | 'paused'>, pauses: ReadonlyMap<string, PausedBy>) => {
  const p = job.paused ? pauses.get(job.id) : undefined;
  return { paused_by: p?.by ?? null, paused_at: p?.at ?? null };
};

/** What `jobs pause` says after the job: a second pause changes nothing unless it gives a new note, and says which. */
export function pauseText(outcome: { changed: boolean; was_paused: boolean; note: string | null }, pausedBy?: PausedBy): string {
  const since = pausedBy ? `, paused at ${pausedBy.at.toISOString()} by ${pausedBy.by ?? '-'}` : '';
  if (!outcome.changed) return `nothing to do (already paused${outcome.note ? `: ${outcome.note}` : ''})${since}`;
  return outcome.was_paused ? `already paused${since}; note changed to: ${outcome.note ?? '-'}` : 'ok';
}
