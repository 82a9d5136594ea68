import type { Logger } from '../log/logger.ts';
import type { DueReading } from './firing-loop.ts';

/** What the firing loop reads after a pass: the reading, and the job whose instant is earliest. */
export interface EarliestDue extends DueReading {
  readonly job: string | null;
}

export interface FiringBehind {
  /** Notes a reading taken after a firing pass; returns it unchanged. */
  noted<T extends EarliestDue>(reading: T): T;
  /** For /healthz: the overdue instant past the warning limit, or null. */
  overdue(): string | null;
}

/**
 * Watches for a due instant that firing passes keep not taking. The watchdog sees a pass that makes no
 * progress; it cannot see one job left behind while the others fire: a row another session holds locked is
 * skipped (SKIP LOCKED) on every pass, without an error, and that job silently stops running. The gauge is
 * what an alert reads; past `warnAfterMs` the job is named in the log once per instant. The replica stays
 * healthy: restarting it would not free another session's lock, and the other jobs still fire.
 */
export function watchFiringBehind(opts: { logger: Logger; warnAfterMs: number; gauge: { set(value: number): void } }): FiringBehind {
  let warned: { job: string; due: string } | null = null;
  let overdue: string | null = null;
  return {
    noted(reading) {
      const behindMs = reading.next && reading.job ? Math.max(0, reading.now.getTime() - reading.next.getTime()) : 0;
      opts.gauge.set(behindMs / 1000);
      const due = reading.next?.toISOString() ?? '';
      if (behindMs >= opts.warnAfterMs && reading.job) {
        const seconds = Math.round(behindMs / 1000);
        overdue = `job ${reading.job}'s instant ${due} has waited ${seconds} s`;
        if (warned?.job !== reading.job || warned.due !== due) {
          warned = { job: reading.job, due };
          opts.logger.warn({ job_id: reading.job, due_at: due, behind_seconds: seconds },
            `job ${reading.job}'s instant ${due} is ${seconds} s overdue and no firing pass has taken it: another session may hold its row locked `
            + '(look in pg_locks and pg_stat_activity for a transaction left open on the jobs table); its runs wait until the row is free');
        }
      } else {
        overdue = null;
        if (warned) {
          opts.logger.info({ job_id: warned.job, due_at: warned.due }, `firing caught up: no instant has waited past the limit since job ${warned.job}'s`);
          warned = null;
        }
      }
      return reading;
    },
    overdue: () => overdue,
  };
}
