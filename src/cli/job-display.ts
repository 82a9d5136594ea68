import type { GrantRow, JobRow } from '../store/schema.ts';

/** Zones whose wall clock is UTC's all year: the instant alone says it. */
const UTC_ZONES = /^(?:Etc\/)?(?:UTC|UCT|GMT|Zulu|Universal)$/i;

/** The wall clock of `at` in `timeZone`, or null for a zone this Node does not know. */
function wallClock(at: Date, timeZone: string): { date: string; time: string } | null {
  try {
    const parts = Object.fromEntries(new Intl.DateTimeFormat('en-CA', {
      timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
    }).formatToParts(at).map((p) => [p.type, p.value]));
    return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}${parts.second === '00' ? '' : `:${parts.second}`}` };
  } catch {
    return null;
  }
}

/**
 * An instant with the job's own wall clock beside it, as the person who wrote the schedule thinks of it:
 * `2026-12-07T01:30:00.000Z (02:30 Europe/Berlin)`, the local date too when it is not UTC's. `zone: false`
 * leaves the zone's name out where a column beside it says it.
 */
export function instantIn(at: Date, timeZone: string, opts: { zone?: boolean } = {}): string {
  const iso = at.toISOString();
  const local = UTC_ZONES.test(timeZone) ? null : wallClock(at, timeZone);
  if (!local) return iso;
  const day = local.date === iso.slice(0, 10) ? '' : `${local.date} `;
  return `${iso} (${day}${local.time}${opts.zone === false ? '' : ` ${timeZone}`})`;
}

/** A row of `jobs list` (and the head of `jobs show`). */
export function jobLine(j: JobRow): string[] {
  const state = j.removed_at ? `removed ${j.removed_at.toISOString()}` : j.paused ? `paused${j.pause_note ? `: ${j.pause_note}` : ''}` : j.next_fire_at ? 'active' : 'done: no instant left';
  return [j.id, j.name, j.schedule, j.timezone, state, j.next_fire_at ? instantIn(j.next_fire_at, j.timezone, { zone: false }) : '-'];
}

/** The notify target a job's delivery names, or null. */
export function deliveryTarget(delivery: unknown): string | null {
  const notify = (delivery as { notify?: unknown } | null | undefined)?.notify;
  return typeof notify === 'string' ? notify : null;
}

/** How a job fires and ends, in one line of `jobs show`. */
export function policiesLine(j: JobRow): string {
  const misfire = j.misfire_policy === 'run_all' ? `run_all (catch-up window ${j.catchup_window_seconds}s)` : j.misfire_policy;
  const retries = j.max_retries > 0 ? `${j.max_retries} (backoff ${j.retry_backoff_seconds}s)` : '0';
  const maxRuns = j.max_runs === null ? 'none' : `${j.max_runs} (${j.fired_count} fired)`;
  return `overlap ${j.overlap_policy}, misfire ${misfire}, timeout ${j.timeout_seconds}s, retries ${retries}, max_runs ${maxRuns}${j.jitter_seconds ? `, jitter ${j.jitter_seconds}s` : ''}`;
}

/** Who approved the job's live grant, for `jobs show`; `grants show` has the rest. */
export function grantLine(j: JobRow, grant: GrantRow | null): string {
  if (grant) return `grant: ${grant.id}, approved by ${grant.approver ?? '-'} on ${grant.channel ?? '-'} at ${grant.approved_at?.toISOString() ?? '-'}`;
  if (j.parent_job_id) return `grant: none of its own; a ${j.origin} child of job ${j.parent_job_id}, runs under that job's grant`;
  return `grant: none (see: grants show ${j.id})`;
}

/** What `jobs create|update` did, in one line: the job, and whether (and by whom) it is authorised. */
export function changeLine(
  verb: 'created' | 'updated', output: unknown, decision: { approval_source?: string; approver?: string } | null, grantRules: Readonly<Record<string, string>>,
): string {
  const o = output as { job?: { id?: string; name?: string }; cron_authorized?: boolean; grant_rule?: string; granted_by?: string | null; grant_issued?: boolean } | null;
  const job = `job ${o?.job?.id ?? '?'} "${o?.job?.name ?? ''}" ${verb}`;
  const human = decision?.approval_source === 'human' && decision.approver ? decision.approver : null;
  // a change outside the definition keeps the grant someone else may have given: name theirs, not this answer's
  const kept = o?.grant_issued === false;
  if (o?.cron_authorized && !kept && human) return `${job}; cron_authorized: yes (approved by ${human})`;
  if (o?.cron_authorized) return `${job}; cron_authorized: yes (its grant${o.granted_by ? ` from ${o.granted_by}` : ''} stays: the change is outside the definition)`;
  const rule = o?.grant_rule ?? '';
  return `${job}; cron_authorized: no (${rule}${grantRules[rule] ? `: ${grantRules[rule]}` : ''})`;
}
