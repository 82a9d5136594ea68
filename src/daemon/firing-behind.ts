import type { Logger } from '../log/logger.ts';
import { eq } from 'drizzle-orm';
import type { Executor } from '../store/db.ts';
import { jobs } from '../store/schema.ts';
import type { DueReading } from './firing-loop.ts';

/** What the firing loop reads after a pass: the reading, and the job whose instant is earliest. */
export interface EarliestDue extends DueReading {
  readonly job: string | null;
  /** Its name, for the log (withJobName): read only while the instant is due. */
  readonly job_name?: string | null;
}

/** The reading with its job's name when that job is due (the only time a line may name it): one lookup by id. */
export async function withJobName<T extends EarliestDue>(exec: Executor, reading: T): Promise<T> {
  if (!reading.job || !reading.next || reading.next > reading.now) return reading;
  const rows = await exec.select({ name: jobs.name }).from(jobs).where(eq(jobs.id, reading.job));
  return { ...reading, job_name: rows[0]?.name ?? null };
}

export interface FiringBehind {
  /** Notes a reading taken after a firing pass; returns it unchanged. */
  noted<T extends EarliestDue>(reading: T): T;
  /** For /healthz: the instant left behind past the warning limit, or null. */
  overdue(): string | null;
}

/**
 * Watches for a due instant that firing passes keep not taking. The watchdog sees a pass that makes no
 * progress; it cannot see one job left behind while the others fire: a row another session holds locked is
 * skipped (SKIP LOCKED) on every pass, without an error, and that job silently stops running. Only an instant
 * already due at an earlier reading counts: a whole pass has run since and left it, so the pass was not merely
 * late (held up by a hung queue, which the watchdog reports). Past `warnAfterMs` the job is named in the log once
 * per instant. The replica stays healthy: restarting it would not free another session's lock.
 * (The echo_agent_firing_behind_seconds gauge is read from the database at each scrape, not here: a pass that
 * hangs would leave a figure taken after the last pass standing.)
 */
export function watchFiringBehind(opts: { logger: Logger; warnAfterMs: number }): FiringBehind {
  let dueAtLastReading: { job: string; due: string } | null = null;
  let warned: { job: string; due: string; name: string | null } | null = null;
  let overdue: string | null = null;
  return {
    noted(reading) {
      const behindMs = reading.next && reading.job ? Math.max(0, reading.now.getTime() - reading.next.getTime()) : 0;
      const due = reading.next?.toISOString() ?? '';
      const left = reading.job !== null && behindMs > 0 && dueAtLastReading?.job === reading.job && dueAtLastReading.due === due;
      dueAtLastReading = reading.job !== null && behindMs > 0 ? { job: reading.job, due } : null;
      if (left && behindMs >= opts.warnAfterMs) {
        const job = reading.job!;
        const name = reading.job_name ?? null;
        const label = labelOf(job, name);
        const seconds = Math.round(behindMs / 1000);
        overdue = `job ${label}'s instant ${due} has waited ${seconds} s`;
        if (warned?.job !== job || warned.due !== due) {
          warned = { job, due, name };
          opts.logger.warn({ job_id: job, job_name: name, due_at: due, behind_seconds: seconds },
            `job ${label}'s instant ${due} is ${seconds} s overdue and firing passes since have not taken it: another session may hold its row locked `
            + '(look in pg_locks and pg_stat_activity for a transaction left open on the jobs table); its runs wait until the row is free');
        }
        return reading;
      }
      overdue = null;
      if (warned && !left) {
        opts.logger.info({ job_id: warned.job, job_name: warned.name, due_at: warned.due }, `firing caught up: job ${labelOf(warned.job, warned.name)}'s instant ${warned.due} was taken`);
        warned = null;
      }
      return reading;
    },
    overdue: () => overdue,
  };
}

/** A job as a line names it: its name and id (`nightly (job_ab12)`), or the id alone when the name is not known. */
const labelOf = (id: string, name: string | null): string => (name ? `${name} (${id})` : id);
