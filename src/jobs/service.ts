import { databaseNow, type Executor } from '../store/db.ts';
import { appendAudit, callColumns, type CallIds } from '../store/audit.ts';
import { getApproval } from '../store/approvals.ts';
import { authorization, issueGrant, liveGrant } from '../store/grants.ts';
import { createJob, DefinitionChangedSince, lockLiveJob, updateJob, type JobChanger, type LockedEdit } from '../store/jobs.ts';
import { activeRunsOf, cancelRun, insertRun } from '../store/runs.ts';
import { decideOverlap } from '../scheduler/overlap.ts';
import type { ApprovalRow, GrantRow, JobRow, RunRow } from '../store/schema.ts';
import type { ToolExecutionContext } from '../tools/context.ts';
import type { CallApproval } from '../tools/types.ts';
import { JobInputError, definitionProblems, jobDefinitionSchema, type DefinitionChecks, type JobDefinition, type JobDefinitionInput } from './definition.ts';
import { NoInstantLeft, checkSchedule, futureFire, instantsDroppedByEdit, isInstantOf, nextFireAfterEdit, storedSchedule } from './next-fire.ts';
import { GRANT_POLICY_RULES, grantForChange, type GrantVerdict } from './grant-policy.ts';
import type { z } from 'zod';
import { JOB_FIELD_ALIASES, meantName } from './near-words.ts';
import { canonicalTimeZone } from './time-zone-name.ts';

export interface JobServiceDeps {
  readonly db: Executor;
  /** `tools.child_jobs`: how deep and how many child jobs (task, spawn_task, workflow) may go. */
  readonly childLimits?: { readonly max_depth: number; readonly max_per_execution: number };
  /** Puts a queued run on the queue (the daemon's RunQueue.enqueue). Without it, the reconciler picks the run up. */
  readonly enqueue?: (runId: string) => Promise<void>;
  readonly now?: () => Date;
}

/** What creating or changing a job needs besides the store: what its names are checked against. */
export interface JobChangeDeps extends JobServiceDeps {
  readonly checks: DefinitionChecks;
  /**
   * The tools a human grant for this job covers when its approval request recorded none (an approver
   * that stores no request): what the job's runs are offered under this process's configuration.
   */
  readonly grantScope: (job: JobRow) => readonly string[];
}

export { JobInputError };

/**
 * Parses a definition, naming each bad field; the schedule is checked by the
 * scheduler's parser, tool and target names against this build and config.
 */
export function parseDefinition(input: unknown, checks: DefinitionChecks, opts: { scheduleChanged?: boolean; now?: Date } = {}): JobDefinition {
  const withDefaults = checks.defaultCatchupWindowSeconds !== undefined && input !== null && typeof input === 'object' && !Array.isArray(input)
    && (input as Record<string, unknown>).catchup_window_seconds === undefined
    ? { ...input, catchup_window_seconds: checks.defaultCatchupWindowSeconds } : input;
  const parsed = jobDefinitionSchema.safeParse(withDefaults);
  if (!parsed.success) {
    throw new JobInputError(tightest(parsed.error.issues).map(issueText).join('; '));
  }
  const problems = definitionProblems(parsed.data, checks);
  if (problems.length > 0) throw new JobInputError(problems.join('; '));
  // on the scheduler's clock, the database's: a host clock ahead of it would refuse an `at` still to come.
  // An edit that leaves the schedule alone is not refused because a one-shot's instant has passed.
  if (opts.scheduleChanged ?? true) {
    if (opts.now) futureFire(parsed.data.schedule, parsed.data.timezone, opts.now);
    else checkSchedule(parsed.data.schedule, parsed.data.timezone);
  }
  return parsed.data;
}

/** One schema problem with its path; an unknown key names the field it most likely meant. */
function issueText(i: z.core.$ZodIssue): string {
  return shapeIssues(i).map((p) => p.text).join('; ');
}

/** A shape problem of a definition: where it is (a path into the definition) and what is wrong there. */
export interface ShapeIssue {
  readonly path: readonly PropertyKey[];
  readonly text: string;
}

/** A path as a builder writes it: `payload.steps[1].args`. */
export const pathText = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, p) => (typeof p === 'number' ? `${out}[${p}]` : out ? `${out}.${String(p)}` : String(p)), '');

/** A limit in a person's words (`at most 604800 (7 days)`), not the schema library's (`Too big: expected number to be <=604800`). */
function limitText(i: z.core.$ZodIssue): string | null {
  if (i.code !== 'too_big' && i.code !== 'too_small') return null;
  const bound = Number(i.code === 'too_big' ? i.maximum : i.minimum);
  const word = i.code === 'too_big' ? (i.inclusive === false ? 'less than' : 'at most') : (i.inclusive === false ? 'more than' : 'at least');
  const unit = i.origin === 'string' ? ' characters' : i.origin === 'array' ? ' items' : '';
  const last = i.path[i.path.length - 1];
  const days = typeof last === 'string' && last.endsWith('_seconds') && bound >= 86_400 && bound % 86_400 === 0 ? ` (${bound / 86_400} day${bound === 86_400 ? '' : 's'})` : '';
  return `${word} ${bound}${unit}${days}`;
}

/**
 * The issues worth reading: of several upper (or lower) bounds one value breaks at one path (a whole number's
 * safe-integer range and the field's own maximum), only the tightest; two limits would read as a contradiction.
 */
function tightest(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const bound = (i: z.core.$ZodIssue) => (i.code === 'too_big' ? Number(i.maximum) : i.code === 'too_small' ? -Number(i.minimum) : NaN);
  return issues.filter((i) => Number.isNaN(bound(i)) || !issues.some((o) => o !== i && o.code === i.code && pathText(o.path) === pathText(i.path)
    && (bound(o) < bound(i) || (bound(o) === bound(i) && issues.indexOf(o) < issues.indexOf(i)))));
}

function shapeIssues(i: z.core.$ZodIssue): ShapeIssue[] {
  if (i.code !== 'unrecognized_keys') return [{ path: i.path, text: `${pathText(i.path) || 'job definition'}: ${limitText(i) ?? i.message}` }];
  const known = knownKeysAt(i.path);
  return i.keys.map((k) => {
    const at = pathText([...i.path, k]);
    // a field of the other payload kind: the kind is what is wrong, not the field's spelling
    const otherKind = i.path.length === 1 && i.path[0] === 'payload' ? PAYLOAD_FIELD_KIND[k] : undefined;
    if (otherKind) return { path: [...i.path, k], text: `${at}: ${otherKind}` };
    const near = meantName(k, known, i.path.length === 0 ? JOB_FIELD_ALIASES : {}) ?? (known.includes('args') && Object.hasOwn(STEP_ALIASES, k) ? STEP_ALIASES[k] : undefined);
    // a top-level field written inside the payload (or a step): say where it belongs
    const misplaced = !near && i.path.length > 0 && k in jobDefinitionSchema.shape ? ` (${k} is a top-level field of the job, not of ${pathText(i.path)})` : '';
    // a step's fields are not the job's: `payload.steps[0].arguments` is not a field of a step
    const owner = i.path[0] === 'payload' && i.path[1] === 'steps' && i.path.length === 3 ? 'a step' : 'a job';
    return { path: [...i.path, k], text: `${at}: is not a field of ${owner}${near ? ` (did you mean ${near}?)` : misplaced}` };
  });
}

/** A payload field its kind does not take, and what to write instead (the kind decides which fields a payload has). */
const PAYLOAD_FIELD_KIND: Readonly<Record<string, string>> = {
  steps: 'an agent payload takes a prompt, not steps; for a list of steps, write kind: steps (and leave prompt and model out)',
  prompt: 'a steps payload takes steps, not a prompt; for a prompt the model follows, write kind: agent (and leave steps out)',
  model: 'a steps payload has no model: its steps call their tools directly; for a model, write kind: agent with a prompt',
};

/**
 * The shape problems of a create call's definition, or of an update's result (the stored job with the patch),
 * each with its path, before anyone is asked: the job file's words, not the cronjob tool's `options.…`.
 */
export function definitionShapeIssues(fields: Partial<JobDefinitionInput>, stored: JobRow | null = null): ShapeIssue[] {
  const parsed = parsedAfter(fields, stored);
  return parsed.success ? [] : tightest(parsed.error.issues).flatMap(shapeIssues);
}

/** The definition a create (or an update of `stored`) would leave, parsed; null when its shape is wrong (said by definitionShapeIssues). */
export function definitionAfter(fields: Partial<JobDefinitionInput>, stored: JobRow | null = null): JobDefinition | null {
  const parsed = parsedAfter(fields, stored);
  return parsed.success ? parsed.data : null;
}

const parsedAfter = (fields: Partial<JobDefinitionInput>, stored: JobRow | null) =>
  jobDefinitionSchema.safeParse(stored ? mergedInput(definitionInputOf(stored), fields) : fields);

/** What a step's fields are called elsewhere (OpenAI's function calls, other schedulers). */
const STEP_ALIASES: Readonly<Record<string, string>> = { arguments: 'args', params: 'args', parameters: 'args', input: 'args', name: 'tool', function: 'tool' };

/** The fields a definition may have at a path: the top level, delivery, the payload and its steps. */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  if (path.length === 0) return Object.keys(jobDefinitionSchema.shape);
  if (path[0] === 'delivery') return ['notify'];
  if (path[0] === 'payload') return path.length === 1 ? ['kind', 'steps', 'prompt', 'model'] : ['tool', 'args'];
  return [];
}

/** The scheduler's clock is the database's (SPEC §7); a first fire from a skewed host clock would invent or drop instants. */
export const schedulerNow = async (deps: JobServiceDeps): Promise<Date> => deps.now?.() ?? databaseNow(deps.db);

/** The ids a change made through a tool call records, so its lines lead back to the call's gate decision. */
export function callOf(ctx: Pick<ToolExecutionContext, 'execution_id' | 'trace_id'>): CallIds {
  return { execution_id: ctx.execution_id, trace_id: ctx.trace_id };
}

/** Who acts in a context: the daemon in an unattended run (the job's owner did nothing then), else the context's user. */
export function actorOf(ctx: Pick<ToolExecutionContext, 'unattended' | 'user_id'>): string {
  return ctx.unattended ? 'daemon' : ctx.user_id || 'unknown';
}

/** Who changes a job through a tool call: who acts in the context, and the call. */
export function changerOf(ctx: ToolExecutionContext): JobChanger {
  return { actor: actorOf(ctx), call: callOf(ctx) };
}

export interface ChangeResult {
  readonly job: JobRow;
  readonly grant: GrantRow | null;
  readonly verdict: GrantVerdict;
}

async function applyGrantPolicy(
  deps: JobChangeDeps, job: JobRow, ctx: ToolExecutionContext, approval: CallApproval | undefined, asked?: ApprovalRow | null,
  opts: { definitionChanged: boolean } = { definitionChanged: true },
): Promise<{ grant: GrantRow | null; verdict: GrantVerdict }> {
  const { db } = deps;
  const verdict = grantForChange(ctx, approval);
  if (verdict.issue) {
    // approved when the person answered, not when the grant row was written (`asked`: that request, read already)
    const request = asked?.id === verdict.approval_id ? asked : await getApproval(db, verdict.approval_id);
    const answered = request?.answered_at ?? null;
    // the grant covers what the person was shown: the request records it where the call waited
    const scope = request?.tool_scope ?? deps.grantScope(job);
    if (!opts.definitionChanged) {
      // the person was shown the whole job as it will be (job-preview), so their answer approves its current
      // definition (I2) even when the change lies outside it: a grant that already covers exactly the tools
      // shown is kept; otherwise one is issued (after a revoke, or to renew a pre-0008 grant's tools)
      const live = await liveGrant(db, job.id);
      if (live && authorization(job, live).cron_authorized && sameTools(live.tool_scope, scope)) return { grant: live, verdict };
    }
    const grant = await issueGrant(db, {
      job_id: job.id, approval_id: verdict.approval_id, approver: verdict.approver, channel: verdict.channel,
      definition_hash: job.definition_hash, actor: verdict.approver, ...(answered ? { approved_at: answered } : {}),
      tool_scope: scope, tool_scope_from: request?.tool_scope ? 'approval_request' : 'issuing_process', call: callOf(ctx),
    });
    return { grant, verdict };
  }
  // a change that is not a definition change leaves the grant as it is (I2 clears it only for definition changes)
  if (!opts.definitionChanged) return { grant: null, verdict };
  return notIssued(db, job, ctx, approval, verdict);
}

async function notIssued(
  db: Executor, job: JobRow, ctx: ToolExecutionContext, approval: CallApproval | undefined, verdict: Extract<GrantVerdict, { issue: false }>,
): Promise<{ grant: null; verdict: GrantVerdict }> {
  await appendAudit(db, {
    kind: 'grant.not_issued', actor: ctx.user_id || null, job_id: job.id, execution_id: ctx.execution_id, trace_id: ctx.trace_id,
    rule: verdict.rule, reason: GRANT_POLICY_RULES[verdict.rule], data: { approval_source: approval?.approval_source ?? ctx.approval_source },
  });
  return { grant: null, verdict };
}

function sameTools(a: readonly string[] | null, b: readonly string[]): boolean {
  return a !== null && a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

/** `cronjob create`: the job, and its grant iff a human approved this call (I2). */
export async function createJobFromCall(deps: JobChangeDeps, input: JobDefinitionInput, ctx: ToolExecutionContext, approval: CallApproval | undefined): Promise<ChangeResult> {
  // the schedule's first instant is judged once, below, on the scheduler's clock
  const def = parseDefinition(input, deps.checks);
  const now = await schedulerNow(deps);
  const next_fire_at = await passedWhileAsked(deps, approval, 'created', async () => futureFire(def.schedule, def.timezone, now));
  const job = await createJob(deps.db, {
    ...def, owner: ctx.user_id || 'unknown', created_by: ctx.user_id || 'unknown', next_fire_at, paused: false, pause_note: null,
  }, { call: callOf(ctx) });
  return { job, ...(await applyGrantPolicy(deps, job, ctx, approval)) };
}

/**
 * An `at` instant checked before the person was asked and passed while they read the request: said so, with
 * both times, not as a schedule written in the past (the approval was given, and is in the audit log).
 */
async function passedWhileAsked<T>(deps: JobServiceDeps, approval: CallApproval | undefined, verb: 'created' | 'changed', work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof NoInstantLeft) || approval?.approval_source !== 'human' || !approval.approval_id) throw err;
    const request = await getApproval(deps.db, approval.approval_id);
    if (!request) throw err;
    const instant = err.schedule.kind === 'at' ? `its instant ${err.schedule.at.toISOString()}` : 'its last instant';
    throw new JobInputError(`schedule: ${instant} passed while the request waited for approval (asked ${request.created_at.toISOString()}, answered `
      + `${request.answered_at?.toISOString() ?? 'later'}); nothing was ${verb}: give a later instant and ask again`);
  }
}

/** The definition fields of a cronjob call's arguments (`options` holds the optional ones). */
export function definitionFields(params: Record<string, unknown>): Partial<JobDefinitionInput> {
  // a zone written in another case is stored as the runtime names it, so the job shows and compares it that way
  const given = { name: params.name, schedule: params.schedule, timezone: canonicalTimeZone(params.timezone), payload: params.payload, ...(params.options as object ?? {}) };
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Partial<JobDefinitionInput>;
}

/**
 * `cronjob update`: any definition change clears the grant (in updateJob);
 * a human-approved change issues a new one for the new definition, and only
 * if the job is still the one the person was shown when asked.
 */
export async function updateJobFromCall(
  deps: JobChangeDeps, id: string, patch: Partial<JobDefinitionInput>, ctx: ToolExecutionContext, approval: CallApproval | undefined,
): Promise<ChangeResult | null> {
  // the person approved this change to the job as it stood when they were asked; a definition changed since is not what they saw
  const asked = approval?.approval_source === 'human' && approval.approval_id ? await getApproval(deps.db, approval.approval_id) : null;
  const now = await schedulerNow(deps);
  const edit = (locked: JobRow): LockedEdit => {
    // nextFireAfterEdit judges a changed schedule's first instant on the scheduler's clock
    const merged = mergedDefinition(locked, patch, deps.checks);
    const fire = nextFireAfterEdit(locked, merged, now);
    return { patch: { ...merged, ...fire }, skipped: instantsDroppedByEdit(locked, fire, merged, now) };
  };
  const updated = await passedWhileAsked(deps, approval, 'changed', () => updateJob(deps.db, id, edit, changerOf(ctx), asked ? { unchangedSince: asked.created_at } : {})).catch((err: unknown) => {
    if (!(err instanceof DefinitionChangedSince)) throw err;
    throw new JobInputError(`${err.message}, after approval ${asked!.id} was asked for; nothing was changed: ask again to approve the change to the job as it is now`, 'business');
  });
  if (!updated) return null;
  // a human-approved update outside the definition renews the tools of a live grant, and authorises nothing new
  return { job: updated.job, ...(await applyGrantPolicy(deps, updated.job, ctx, approval, asked, { definitionChanged: updated.definitionChanged })) };
}

/**
 * A stored job with a patch applied, checked. A payload patch of the same kind
 * keeps the fields it does not give (an agent job's model); an empty patch is an error.
 */
export function mergedDefinition(job: JobRow, patch: Partial<JobDefinitionInput>, checks: DefinitionChecks, now?: Date): JobDefinition {
  if (Object.keys(patch).length === 0) throw new JobInputError('update: names no field to change');
  const before = definitionInputOf(job);
  const input = mergedInput(before, patch);
  return parseDefinition(input, checks, { scheduleChanged: input.schedule !== before.schedule || input.timezone !== before.timezone, ...(now ? { now } : {}) });
}

/** A stored job's definition with a patch over it; a payload of the same kind keeps the fields the patch leaves out. */
function mergedInput(before: JobDefinitionInput, patch: Partial<JobDefinitionInput>): JobDefinitionInput {
  const payload = patch.payload && typeof patch.payload === 'object' && patch.payload.kind === before.payload.kind
    ? { ...before.payload, ...patch.payload } : patch.payload ?? before.payload;
  return { ...before, ...patch, payload } as JobDefinitionInput;
}

/** The definition fields of a stored job, in the shape parseDefinition takes. */
export function definitionInputOf(job: JobRow): JobDefinitionInput {
  return {
    name: job.name, schedule: job.schedule, timezone: job.timezone, payload: job.payload as JobDefinitionInput['payload'],
    tools: job.tools, delivery: (job.delivery as JobDefinitionInput['delivery']) ?? null,
    overlap_policy: job.overlap_policy, misfire_policy: job.misfire_policy, catchup_window_seconds: job.catchup_window_seconds,
    jitter_seconds: job.jitter_seconds, timeout_seconds: job.timeout_seconds, max_retries: job.max_retries,
    retry_backoff_seconds: job.retry_backoff_seconds, max_runs: job.max_runs,
  };
}

/** A manual run the job's overlap policy does not allow now. */
export class RunRefusedError extends Error {
  override readonly name = 'RunRefusedError';
  constructor(readonly rule: string, reason: string) {
    super(`${rule}: ${reason}`);
  }
}

/**
 * "Run now": trigger manual, under the job's lock and its overlap policy like a
 * fired instant (skip refuses while a run is active, cancel_other cancels the others).
 */
/** `requester`: who asks (a name from the command line), or the changer of a tool call. */
export async function manualRun(deps: JobServiceDeps, id: string, requester: JobChanger | string): Promise<RunRow | null> {
  const by = typeof requester === 'string' ? { actor: requester } : requester;
  const { actor } = by;
  const run = await deps.db.transaction(async (tx) => {
    const job = await lockLiveJob(tx, id);
    if (!job) return null;
    const active = (await activeRunsOf(tx, [id])).get(id) ?? [];
    const running = active.filter((r) => r.state === 'running').length;
    const decision = decideOverlap(job.overlap_policy, { running, queued: active.length - running });
    if (decision.action === 'skip') throw new RunRefusedError(decision.rule, decision.reason);
    if (decision.action === 'cancel_running_then_start') {
      for (const other of active) await cancelRun(tx, { run_id: other.id, reason: `${decision.rule}: replaced by a manual run requested by ${actor}` });
    }
    const now = deps.now?.() ?? await databaseNow(tx);
    const created = await insertManualRun(tx, job, now);
    if (!created) throw new Error(`a manual run of ${id} could not be inserted`);
    await appendAudit(tx, { kind: 'run.queued', actor, job_id: id, run_id: created.id, ...callColumns(by.call), rule: decision.rule, data: { trigger: 'manual' } });
    return created;
  });
  if (run) await deps.enqueue?.(run.id);
  return run;
}

/**
 * A manual run's instant is never one of the schedule's (the firing loop would find it
 * taken and the scheduled run would vanish, I13) nor an existing run's: it moves on by a
 * millisecond until it is neither.
 */
async function insertManualRun(tx: Executor, job: JobRow, now: Date): Promise<RunRow | null> {
  const schedule = storedSchedule(job);
  for (let ms = now.getTime(), tries = 0; tries < 5; ms++, tries++) {
    const at = new Date(ms);
    if (isInstantOf(schedule, at)) continue;
    const created = await insertRun(tx, { job_id: job.id, nominal_at: at, trigger: 'manual' });
    if (created) return created;
  }
  return null;
}
