import type { Executor } from '../store/db.ts';
import { sql } from 'drizzle-orm';
import { JOB_ORIGINS, type RunRow } from '../store/schema.ts';
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

/** What a table row says of a run beyond its row: whether it held cron_authorized and why not, and what queued it. */
export interface RunShown {
  readonly authorised: boolean;
  /** The authorisation rule its run.started record names (grant.valid, grant.none, grant.definition_changed, …); null before it started. */
  readonly authorization_rule: string | null;
  /** The tool whose call made the child job and queued this run (task, workflow, spawn_task); null for a person's or the schedule's. */
  readonly trigger_origin: string | null;
  /** A run that started without a grant: the one its job lost before (revoked, cleared), who ended it and why (redacted). */
  readonly ended_grant: { readonly id: string; readonly ending: string | null; readonly ended_at: string | null; readonly ended_by: string | null; readonly why: string | null } | null;
}

/**
 * Per run, what its audit records add to its row, in one query for all of them: cron_authorized (the row's answer,
 * or for a run without one its run.started record's), the rule behind it, and a child job's run's origin, which the
 * stored trigger (cron | manual) does not hold.
 */
export async function runsShown(exec: Executor, runs: readonly RunRow[]): Promise<Map<string, RunShown>> {
  const records = await runRecords(exec, runs);
  return new Map(runs.map((r) => {
    const rec = records.get(r.id);
    // the row learns it as the run finishes: one running, or ended for it by a lease expiry, has it only in its run.started record
    const authorised = r.cron_authorized ?? rec?.cron_authorized ?? false;
    return [r.id, { authorised, authorization_rule: rec?.rule ?? null, trigger_origin: r.trigger === 'manual' ? rec?.origin ?? null : null, ended_grant: rec?.ended_grant ?? null }];
  }));
}

interface RunRecords { readonly cron_authorized: boolean | null; readonly rule: string | null; readonly origin: string | null; readonly ended_grant: RunShown['ended_grant'] }

const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** data.ended_grant of a run.started record, its free text redacted (I11). */
export function endedGrantOf(raw: Record<string, unknown> | null | undefined): RunShown['ended_grant'] {
  if (!raw || typeof raw.id !== 'string') return null;
  const redacted = (v: unknown) => { const t = textOrNull(v); return t === null ? null : redactText(t); };
  return { id: raw.id, ending: textOrNull(raw.ending), ended_at: textOrNull(raw.ended_at), ended_by: redacted(raw.ended_by), why: redacted(raw.why) };
}

/** The origins of child jobs (JOB_ORIGINS less cronjob): what a child job's run shows as its trigger. */
export const CHILD_ORIGINS: readonly string[] = JOB_ORIGINS.filter((o) => o !== 'cronjob');

/**
 * The newest run.started (its rule and cron_authorized) and run.queued record of each run: a child job's run.queued
 * names the tool that made it as data.job_origin (data.origin in records written before that key).
 */
async function runRecords(exec: Executor, runs: readonly RunRow[]): Promise<Map<string, RunRecords>> {
  if (runs.length === 0) return new Map();
  const ids = sql.join([...new Set(runs.map((r) => r.id))].map((v) => sql`${v}`), sql`, `);
  // audit_events_run_idx (run_id, kind, seq) holds exactly these: two short index ranges a run, not the jobs' whole history
  const { rows } = await exec.execute<{ run_id: string; kind: string; rule: string | null; cron_authorized: boolean | null; origin: string | null; ended_grant: Record<string, unknown> | null }>(sql`
    select distinct on (run_id, kind) run_id, kind, rule,
      case when kind = 'run.started' and jsonb_typeof(data->'ended_grant') = 'object' then data->'ended_grant' end as ended_grant,
      case when kind = 'run.started' and jsonb_typeof(data->'cron_authorized') = 'boolean' then (data->>'cron_authorized')::boolean end as cron_authorized,
      case when kind = 'run.queued' then coalesce(
        case when jsonb_typeof(data->'job_origin') = 'string' then data->>'job_origin' end,
        case when jsonb_typeof(data->'origin') = 'string' then data->>'origin' end) end as origin
    from audit_events
    where run_id in (${ids}) and kind in ('run.started', 'run.queued')
    order by run_id, kind, seq desc`);
  const out = new Map<string, RunRecords>();
  for (const row of rows) {
    const was = out.get(row.run_id) ?? { cron_authorized: null, rule: null, origin: null, ended_grant: null };
    out.set(row.run_id, row.kind === 'run.started' ? { ...was, cron_authorized: row.cron_authorized, rule: row.rule, ended_grant: endedGrantOf(row.ended_grant) }
      : { ...was, origin: CHILD_ORIGINS.includes(row.origin ?? '') ? row.origin : null });
  }
  return out;
}

/** The AUTH cell: cron_authorized, or why not (the rule its start recorded, and the grant the job lost before it), or `-` for a run not started. */
function authCell(shown: RunShown | undefined): string {
  if (shown?.authorised) return 'cron_authorized';
  const e = shown?.ended_grant;
  const lost = e ? `; grant ${e.id} ${e.ending === 'grant.revoked' ? 'revoked' : 'ended'} by ${e.ended_by ?? '-'}` : '';
  return shown?.authorization_rule ? `no (${shown.authorization_rule}${lost})` : '-';
}

/** The TRIGGER cell: cron, manual, or for a child job's run the tool that made it (`workflow`; stored as manual). */
export const triggerText = (r: Pick<RunRow, 'trigger'>, shown: RunShown | undefined): string => shown?.trigger_origin ?? r.trigger;

/**
 * Runs as `runs list` and `jobs runs` print them; `names` (job id → name) adds the job columns for runs of
 * several jobs. A run that "succeeded" after refusals did less than it was asked: its denials stand beside its
 * state, and its error names what was refused, what failed and what had bad arguments.
 */
export function printRuns(runs: readonly RunRow[], shown: ReadonlyMap<string, RunShown>, names?: ReadonlyMap<string, string>): void {
  const jobColumns = names ? ['JOB', 'NAME'] : [];
  printTable(['RUN', ...jobColumns, 'NOMINAL', 'TRIGGER', 'STATE', 'DENIALS', 'ATTEMPT', 'AUTH', 'ERROR'], runs.map((r) => [
    r.id, ...(names ? [r.job_id, names.get(r.job_id) ?? '-'] : []), r.nominal_at.toISOString(), triggerText(r, shown.get(r.id)), r.state, r.denials, r.attempt,
    authCell(shown.get(r.id)), clip(errorText(r), 120),
  ]));
}

/** The names of the runs' jobs (removed ones too), as the table's NAME column shows them. */
export async function jobNames(exec: Executor, runs: readonly RunRow[]): Promise<Map<string, string>> {
  const { jobsById } = await import('../store/jobs.ts');
  const jobs = await jobsById(exec, runs.map((r) => r.job_id));
  return new Map([...jobs].map(([id, j]) => [id, redactText(j.name)]));
}

/**
 * Runs as `--json` prints them: each row whole, with its job's name beside its id, as the table shows it, and
 * (added beside the row's own fields) the authorisation rule its start recorded and a child job's run's origin.
 */
export function runsJson(runs: readonly RunRow[], names: ReadonlyMap<string, string>, shown: ReadonlyMap<string, RunShown>) {
  return runs.map((r) => ({
    ...r, job_name: names.get(r.job_id) ?? null,
    authorization_rule: shown.get(r.id)?.authorization_rule ?? null, trigger_origin: shown.get(r.id)?.trigger_origin ?? null,
    ended_grant: shown.get(r.id)?.ended_grant ?? null,
  }));
}
