import type { Config } from '../config/schema.ts';
import { builtinTools } from '../daemon/daemon-tools.ts';
import { childJobsCovered, type CoveredChildren } from '../jobs/run-authorization.ts';
import { jobModelMissing, jobToolSet, toolOutlook } from '../session/job-preview.ts';
import type { Executor } from '../store/db.ts';
import { definitionHash } from '../store/definition-hash.ts';
import { authorization, listGrants, liveGrant } from '../store/grants.ts';
import { jobAuthorization } from './jobs-authorization.ts';
import { jobsById } from '../store/jobs.ts';
import type { GrantRow, JobRow } from '../store/schema.ts';
import { redactText } from '../util/redact.ts';
import { answerRecords } from '../store/chain-tables.ts';
import { ANSWER_VIA, type AnswerVia } from '../store/approvals.ts';
import { shownJob } from './commands/jobs.ts';
import { changesSince, definitionChange, endedGrants, endingOrigins, requestsOf, type Origin, type RecordedChange, type Request } from './grant-history.ts';
import { deliveryTarget, jobModel, type EndedGrant } from './job-display.ts';
import { jobByRef } from './job-ref.ts';

const redactOrNull = (text: string | null): string | null => (text === null ? null : redactText(text));
const NO_REQUEST: Request = { requested_by: null, requested_from: null, answered_from: null };

/** A recorded change as `grants show --json` gives it: `at`, `by` and `fields` as before, who asked and who approved beside them. */
const shownChange = (c: RecordedChange) => ({ ...c, by: redactOrNull(c.by), requested_by: redactOrNull(c.requested_by) });

/** `grants list`: each grant with its job, whether it authorises now, its child jobs, and who asked for, approved and ended it. */
export async function grantListRows(db: Executor, opts: { job?: string; all?: boolean }) {
  const job = opts.job ? await jobByRef(db, opts.job, { includeRemoved: true }) : null;
  const grants = await listGrants(db, { ...(job ? { job_id: job.id } : {}), includeRevoked: Boolean(opts.all) });
  // an id alone does not tell an admin which job holds the grant
  const [jobs, children, requests, ending] = await Promise.all([
    jobsById(db, grants.map((g) => g.job_id)),
    // child jobs run under their parent's grant: an admin counting what holds cron authority must see them
    childJobsCovered(db, grants), requestsOf(db, grants), endingOrigins(db, grants),
  ]);
  return grants.map((g) => {
    const held = jobs.get(g.job_id) ?? null;
    // as a run judges it (a grant row says what was approved, not whether it still covers the job)
    const now = held && !g.revoked_at ? authorization(held, g) : null;
    const covered = children.get(g.id);
    const request = (g.approval_id ? requests.get(g.approval_id) : undefined) ?? NO_REQUEST;
    const who = whoApproved(g, request);
    // names and reasons are free text: shown redacted, as jobs show shows them (I11)
    return {
      ...g, job_name: redactOrNull(held?.name ?? null), revoked_by: redactOrNull(g.revoked_by), revoked_why: redactOrNull(g.revoked_why),
      authorizes_now: now?.cron_authorized ?? false, authorization_rule: now?.rule ?? (g.revoked_at ? 'grant.none' : 'grant.job_removed'),
      child_jobs: (covered?.live ?? []).map((c) => ({ id: c.id, name: redactOrNull(c.name), origin: c.origin })),
      finished_child_jobs: covered?.finished.length ?? 0,
      requested_by: redactOrNull(request.requested_by), requested_from: request.requested_from, answered_from: request.answered_from,
      self_approved: who.self_approved, same_os_account: who.same_os_account,
      // the grant's definition_hash is the approved one; the job's is recomputed from what its row holds now
      job_definition_hash: held ? definitionHash(held) : null, definition_matches: held ? g.definition_hash === definitionHash(held) : null,
      revoked_from: ending.get(g.id) ?? null,
    };
  });
}

/** `grants show`: what the job may do tonight, and who said so. */
export async function grantReport(config: Config, db: Executor, ref: string) {
  const job = await jobByRef(db, ref, { includeRemoved: true });
  // a child job (task, workflow, spawn_task) has no grant of its own: it runs under its parent's
  const grant = job.origin === 'cronjob' ? await liveGrant(db, job.id) : null;
  const auth = await jobAuthorization(db, job, { liveGrant: grant });
  // no live grant: who ended the last one, and why, is the rest of "who said so"
  const [covered, requests, lastGrant, answers] = await Promise.all([
    grant ? childJobsCovered(db, [grant]) : new Map<string, CoveredChildren>(), requestsOf(db, grant ? [grant] : []), grant ? null : lastEndedGrant(db, job),
    answerRecords(db, grant?.approval_id ? [grant.approval_id] : []),
  ]);
  // how the answer came (the asking terminal, or approvals approve in another shell), as its approval.answered record says
  const via = answeredVia(grant?.approval_id ? answers.get(grant.approval_id)?.data.answered_via : undefined);
  // the approver is the name the answerer gave; the approval row knows who asked, and the accounts both came from
  const request = (grant?.approval_id ? requests.get(grant.approval_id) : undefined) ?? NO_REQUEST;
  // changes approved after the grant that kept it (a timeout, a name): the grant's approver did not make them
  const changes = grant ? await changesSince(db, job.id, grant) : [];
  const matches = grant ? grant.definition_hash === definitionHash(job) : true;
  const change = grant && !matches ? await definitionChange(db, job, grant, changes) : null;
  const set = jobToolSet(config, builtinTools(config, { db }), job.tools, job.payload);
  const target = deliveryTarget(job.delivery);
  const shown = shownJob(job);
  const children = grant ? covered.get(grant.id) : undefined;
  return {
    job: {
      // the stored row decides (its hash, its tools); only its text is shown redacted
      id: job.id, name: shown.name, schedule: job.schedule, timezone: job.timezone, paused: job.paused, pause_note: shown.pause_note, removed_at: job.removed_at,
      // the hash of what the row holds now (as a run judges it); the stored column, which raw SQL can leave behind, beside it
      next_fire_at: job.next_fire_at, definition_hash: definitionHash(job), definition_hash_stored: job.definition_hash, origin: job.origin, parent_job_id: job.parent_job_id, payload_kind: job.payload.kind, tools: job.tools,
      /** The tools its steps call (a steps payload): each is refused or allowed whatever its tools list names. */
      step_tools: job.payload.kind === 'steps' ? [...new Set(job.payload.steps.map((st) => st.tool))] : [],
    },
    /** Where each finished run's outcome goes: part of what the human approved. */
    delivery: target ? { notify: target, configured: Object.hasOwn(config.notify.targets, target), delivers: auth.cron_authorized } : null,
    /** The model settings its agent runs need and this configuration lacks: each such run fails. */
    model_missing: jobModelMissing(config, job.payload),
    /** The model an agent job's runs use, and which part of it the grant does not cover. */
    model: jobModel(job.payload, config.model),
    /** Why the job fires nothing tonight, or null when it fires on schedule. */
    will_not_fire: job.removed_at ? 'removed' : job.paused ? 'paused until resumed' : job.next_fire_at ? null : 'its schedule has no instant left',
    authorization: auth,
    last_grant: lastGrant,
    grant: grant ? {
      id: grant.id, approver: grant.approver, channel: grant.channel, approved_at: grant.approved_at, approval_id: grant.approval_id,
      ...whoApproved(grant, request),
      answered_via: via, answered_via_text: via ? ANSWER_VIA[via] : null,
      /** The definition the human approved; job.definition_hash is the current one. */
      definition_hash: grant.definition_hash, definition_matches: matches,
      /** Null while it matches; else the recorded change that explains it (none: changed outside echo-agent) and the fields that differ. */
      definition_change: change ? { recorded: change.recorded_by !== null, recorded_by: change.recorded_by && shownChange(change.recorded_by), fields: change.fields } : null,
      /** The newest change since the grant that kept it; changes_since has each (at most 20). */
      changed_since: changes.length > 0 ? shownChange(changes.at(-1)!) : null,
      changes_since: changes.map(shownChange),
    } : null,
    /** Live child jobs (task, workflow, spawn_task) made by its runs, which run under this grant too; revoking it stops them (I5). */
    child_jobs: (children?.live ?? []).map((c) => ({ id: c.id, name: redactOrNull(c.name), origin: c.origin, schedule: c.schedule, next_fire_at: c.next_fire_at })),
    /** Child jobs under this grant with nothing left to do: no instant left, no run under way. */
    finished_child_jobs: children?.finished.length ?? 0,
    unattended_policy: config.permissions.approval.unattended_policy,
    tools: await toolOutlook(config, set.offered, auth.cron_authorized, auth.tool_scope), removed: set.removed,
  };
}

/** A recorded answered_via, when it is one this build knows. */
const answeredVia = (v: unknown): AnswerVia | null => (typeof v === 'string' && Object.hasOwn(ANSWER_VIA, v) ? v as AnswerVia : null);

export type GrantReport = Awaited<ReturnType<typeof grantReport>>;

const sameAccount = (a: Origin | null, b: Origin | null): boolean => a !== null && b !== null && a.os_account === b.os_account && a.host === b.host;

/**
 * Who asked for a grant's approval and who answered, as grants show, grants list and jobs show --json give it. Self-approved:
 * one name on both sides, or one OS account on both sides (an --as name is not checked, so two names from one account are one person as far as anyone knows).
 */
export function whoApproved(grant: Pick<GrantRow, 'approver'>, request: Request) {
  const sameName = request.requested_by !== null && request.requested_by === grant.approver;
  const same = sameAccount(request.requested_from, request.answered_from);
  return {
    answered_from: request.answered_from, requested_by: redactOrNull(request.requested_by), requested_from: request.requested_from,
    self_approved: sameName || same, same_os_account: same,
  };
}

/** jobs show --json's grant: the row as before, and who asked and answered as grants show gives them. */
export async function grantWithRequest(db: Executor, grant: GrantRow | null) {
  if (!grant) return null;
  const request = (grant.approval_id ? (await requestsOf(db, [grant])).get(grant.approval_id) : undefined) ?? NO_REQUEST;
  return { ...grant, ...whoApproved(grant, request) };
}

/** A cronjob job's last grant when it holds none now: who ended it, when and why (null: it never had one). */
export async function lastEndedGrant(db: Executor, job: JobRow): Promise<EndedGrant | null> {
  if (job.origin !== 'cronjob') return null;
  const ended = (await listGrants(db, { job_id: job.id, includeRevoked: true, limit: 1 }))[0];
  if (!ended?.revoked_at) return null;
  return (await endedGrants(db, [ended])).get(ended.id) ?? null;
}
