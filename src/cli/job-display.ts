import { redactText } from '../util/redact.ts';
import { definitionHash } from '../store/definition-hash.ts';
import type { GrantRow, JobRow, Payload } from '../store/schema.ts';

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

/**
 * A row of `jobs list` (and the head of `jobs show`); `pausedBy`: who paused a paused job and when. A paused job fires
 * nothing, so its NEXT FIRE says paused rather than an instant that will not run.
 */
export function jobLine(j: JobRow, pausedBy?: { readonly by: string | null; readonly at: Date }): string[] {
  const by = pausedBy ? ` (by ${pausedBy.by ?? '-'} at ${pausedBy.at.toISOString()})` : '';
  const state = j.removed_at ? `removed ${j.removed_at.toISOString()}` : j.paused ? `paused${j.pause_note ? `: ${j.pause_note}` : ''}${by}` : j.next_fire_at ? 'active' : 'done: no instant left';
  const next = j.paused && !j.removed_at ? 'paused' : j.next_fire_at ? instantIn(j.next_fire_at, j.timezone, { zone: false }) : '-';
  return [j.id, j.name, j.schedule, j.timezone, state, next];
}

/** A job's definition hash as --json gives it: of what its row holds now (as a run judges it), the stored column beside it. */
export const jobHashes = (job: JobRow) => ({ definition_hash: definitionHash(job), definition_hash_stored: job.definition_hash });

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

/** A job's last grant, ended: who approved it, and who ended it, when, from where and why. */
export interface EndedGrant {
  readonly id: string;
  readonly approver: string | null;
  readonly approved_at: Date | null;
  readonly ended_at: Date | null;
  readonly ended_by: string | null;
  /** The OS account and host its ending record names (a CLI revoke records them). */
  readonly ended_from: { readonly os_account: string; readonly host: string } | null;
  readonly why: string | null;
}

/** A job without a live grant, whose last one ended: the line `grants show` prints, and `jobs show` can. */
export function endedGrantLine(g: EndedGrant): string {
  const from = g.ended_from ? ` (OS account ${g.ended_from.os_account} on ${g.ended_from.host})` : '';
  return `grant: none; the last one, ${g.id} (approved by ${g.approver ?? '-'} at ${g.approved_at?.toISOString() ?? '-'}), ended at ${g.ended_at?.toISOString() ?? '-'} by ${g.ended_by ?? '-'}${from}: ${g.why ?? '-'}`;
}

/**
 * Who approved the job's live grant, for `jobs show`; `grants show` has the rest. `ended`: the job's last grant when
 * it has no live one, so a revoked job names who revoked it and why rather than "never approved".
 */
export function grantLine(j: JobRow, grant: GrantRow | null, ended: EndedGrant | null = null): string {
  if (grant) return `grant: ${grant.id}, approved by ${grant.approver ?? '-'} on ${grant.channel ?? '-'} at ${grant.approved_at?.toISOString() ?? '-'}`;
  if (j.parent_job_id) return `grant: none of its own; a ${j.origin} child of job ${j.parent_job_id}, runs under that job's grant`;
  if (ended) return endedGrantLine(ended);
  return `grant: none (see: grants show ${j.id})`;
}

/** Where a job's runs deliver: only a run holding the grant posts its outcome, so a job without one delivers nothing. */
export function deliveryLine(target: string | null, delivers: boolean): string {
  if (!target) return 'delivery: none';
  return delivers ? `delivery: each finished run's outcome is posted to notify target ${target}`
    : `delivery: notify target ${target}, but nothing is posted while the job has no live grant`;
}

/**
 * The model an agent job's runs use, and where each part comes from. The human approved the payload, so a model
 * named there is part of the grant; the configuration's model.name and model.base_url are not, and may change
 * without a new approval.
 */
export interface JobModel {
  /** Null: neither the payload nor model.name names one. */
  readonly name: string | null;
  readonly name_from: 'payload' | 'config';
  /** model.base_url, a key in its query redacted (I11; the configuration refuses a user or password in it); null when unset. */
  readonly endpoint: string | null;
  readonly endpoint_from: 'config';
  readonly name_in_grant: boolean;
  readonly endpoint_in_grant: false;
}

/** The model of an agent job's runs (null for a steps job), as the daemon picks it: the payload's name, else the config's. */
export function jobModel(payload: Payload, model: { readonly name: string; readonly base_url?: string | undefined }): JobModel | null {
  if (payload.kind !== 'agent') return null;
  const named = typeof payload.model === 'string' && payload.model !== '' ? payload.model : null;
  return {
    name: named ?? (model.name || null), name_from: named ? 'payload' : 'config',
    endpoint: model.base_url ? redactText(model.base_url) : null, endpoint_from: 'config', name_in_grant: named !== null, endpoint_in_grant: false,
  };
}

/** `model: NAME @ ENDPOINT (…)`, saying which part is outside the grant: for `grants show` and `jobs show`. */
export function modelLine(m: JobModel): string {
  const endpoint = m.endpoint ?? '(model.base_url not set)';
  const outside = 'from config, not part of the grant: it may change without a new approval';
  return m.name_from === 'payload'
    ? `model: ${m.name} (named by the job's payload, part of the grant) @ ${endpoint} (endpoint ${outside})`
    : `model: ${m.name ?? '(model.name not set)'} @ ${endpoint} (${outside})`;
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
