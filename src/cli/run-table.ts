import type { Executor } from '../store/db.ts';
import type { RunRow } from '../store/schema.ts';
import { authorizedAtStart } from './authority.ts';
import { clip, printTable } from './output.ts';

/** Per run, whether it was cron_authorized: the runs row's answer, or for a run not finished its run.started record's. */
export async function runAuthorities(exec: Executor, runs: readonly RunRow[]): Promise<Map<string, boolean>> {
  // a run not finished (running, or ended by a lease expiry) has its authorisation only in its run.started record
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
    authorised.get(r.id) ? 'cron_authorized' : '-', clip(r.error ?? r.skip_reason ?? '', 120),
  ]));
}
