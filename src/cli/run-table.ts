import type { Executor } from '../store/db.ts';
import type { RunRow } from '../store/schema.ts';
import { authorizedAtStart } from './authority.ts';
import { clip, printTable } from './output.ts';
import { redactText } from '../util/redact.ts';

/**
 * A run's error as a person reads it beside its state. A run still to end (running, retrying, queued) keeps the
 * error of the attempt that failed before: named as that attempt's, it does not read as the current one failing.
 */
export function errorText(r: Pick<RunRow, 'state' | 'attempt' | 'error' | 'skip_reason'>): string {
  if (r.error === null) return r.skip_reason ?? '';
  // the claim counts the attempt up as it starts it: a running run's error is the attempt before's
  const failed = r.state === 'running' ? r.attempt - 1 : r.attempt;
  const unended = r.state === 'running' || r.state === 'retrying' || r.state === 'queued';
  return unended && failed >= 1 ? `attempt ${failed}: ${r.error}` : r.error;
}

/** Per run, whether it was cron_authorized: the runs row's answer, or for a run without one its run.started record's. */
export async function runAuthorities(exec: Executor, runs: readonly RunRow[]): Promise<Map<string, boolean>> {
  // the row learns it as the run finishes: one running, or ended for it by a lease expiry, has it only in its run.started record
  const started = await authorizedAtStart(exec, runs.filter((r) => r.cron_authorized === null && r.started_at !== null).map((r) => r.id));
  return new Map(runs.map((r) => [r.id, r.cron_authorized ?? started.get(r.id) ?? false]));
}

/**
 * Runs as `runs list` and `jobs runs` print them; `names` (job id → name) adds the job columns for runs of
 * several jobs. A run that "succeeded" after refusals did less than it was asked: its denials stand beside its state.
 */
export function printRuns(runs: readonly RunRow[], authorised: ReadonlyMap<string, boolean>, names?: ReadonlyMap<string, string>): void {
  const jobColumns = names ? ['JOB', 'NAME'] : [];
  printTable(['RUN', ...jobColumns, 'NOMINAL', 'TRIGGER', 'STATE', 'DENIALS', 'ATTEMPT', 'AUTH', 'ERROR'], runs.map((r) => [
    r.id, ...(names ? [r.job_id, names.get(r.job_id) ?? '-'] : []), r.nominal_at.toISOString(), r.trigger, r.state, r.denials, r.attempt,
    authorised.get(r.id) ? 'cron_authorized' : '-', clip(errorText(r), 120),
  ]));
}

/** The names of the runs' jobs (removed ones too), as the table's NAME column shows them. */
export async function jobNames(exec: Executor, runs: readonly RunRow[]): Promise<Map<string, string>> {
  const { jobsById } = await import('../store/jobs.ts');
  const jobs = await jobsById(exec, runs.map((r) => r.job_id));
  return new Map([...jobs].map(([id, j]) => [id, redactText(j.name)]));
}

/** Runs as `--json` prints them: each row whole, with its job's name beside its id, as the table shows it. */
export function runsJson(runs: readonly RunRow[], names: ReadonlyMap<string, string>): (RunRow & { job_name: string | null })[] {
  return runs.map((r) => ({ ...r, job_name: names.get(r.job_id) ?? null }));
}
