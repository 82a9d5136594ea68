import { sql } from 'drizzle-orm';
import {
  bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp, unique, uniqueIndex,
} from 'drizzle-orm/pg-core';

// Self-contained on purpose: drizzle-kit loads this file on its own.
// Tables are unqualified so a connection's search_path decides the schema (per-test schemas).

export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'allow', 'cancel_other'] as const;
export const MISFIRE_POLICIES = ['skip', 'run_once', 'run_all'] as const;
export const RUN_TRIGGERS = ['cron', 'manual'] as const;
/** Which tool created a job: child jobs (task, workflow, spawn_task) inherit their parent job's grant, never one of their own. */
export const JOB_ORIGINS = ['cronjob', 'task', 'workflow', 'spawn_task'] as const;
export type JobOrigin = (typeof JOB_ORIGINS)[number];
export const RUN_STATES = [
  'queued', 'running', 'retrying', 'succeeded', 'failed', 'denied', 'timed_out', 'interrupted', 'cancelled', 'skipped',
] as const;
/** expired: nobody answered in time; withdrawn: the asker stopped waiting before that (Ctrl-C, a closed terminal, gone). */
export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'expired', 'withdrawn'] as const;
export const APPROVAL_ANSWERS = ['once', 'always', 'deny'] as const;

export type RunState = (typeof RUN_STATES)[number];
export type ApprovalState = (typeof APPROVAL_STATES)[number];
export type ApprovalAnswerKind = (typeof APPROVAL_ANSWERS)[number];

/** A run in one of these states will not change any more. */
export const FINAL_RUN_STATES = ['succeeded', 'failed', 'denied', 'timed_out', 'interrupted', 'cancelled', 'skipped'] as const satisfies readonly RunState[];

const tz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
/** A SQL list of string literals from a table of this file's own constants (never user input). */
export const oneOf = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

export type StepsPayload = { kind: 'steps'; steps: { tool: string; args: Record<string, unknown> }[] };
export type AgentPayload = { kind: 'agent'; prompt: string; model?: string };
export type Payload = StepsPayload | AgentPayload;
export type Delivery = Record<string, unknown>;

export const jobs = pgTable('jobs', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  owner: text('owner').notNull(),
  schedule: text('schedule').notNull(),
  timezone: text('timezone').notNull().default('UTC'),
  payload: jsonb('payload').$type<Payload>().notNull(),
  tools: text('tools').array().notNull().default(sql`'{}'::text[]`),
  delivery: jsonb('delivery').$type<Delivery>(),
  overlap_policy: text('overlap_policy', { enum: OVERLAP_POLICIES }).notNull().default('skip'),
  misfire_policy: text('misfire_policy', { enum: MISFIRE_POLICIES }).notNull().default('run_once'),
  catchup_window_seconds: integer('catchup_window_seconds').notNull().default(3600),
  jitter_seconds: integer('jitter_seconds').notNull().default(0),
  timeout_seconds: integer('timeout_seconds').notNull().default(600),
  max_retries: integer('max_retries').notNull().default(0),
  retry_backoff_seconds: integer('retry_backoff_seconds').notNull().default(30),
  max_runs: integer('max_runs'),
  fired_count: integer('fired_count').notNull().default(0),
  paused: boolean('paused').notNull().default(false),
  pause_note: text('pause_note'),
  next_fire_at: tz('next_fire_at'),
  last_fire_at: tz('last_fire_at'),
  definition_hash: text('definition_hash').notNull(),
  created_by: text('created_by').notNull(),
  created_at: tz('created_at').notNull().defaultNow(),
  updated_at: tz('updated_at').notNull().defaultNow(),
  removed_at: tz('removed_at'),
  origin: text('origin', { enum: JOB_ORIGINS }).notNull().default('cronjob'),
  parent_job_id: text('parent_job_id'),
  parent_execution_id: text('parent_execution_id'),
  /** A child job's: the trace of the run or turn that made it (its sub-agents' and retries' included), which its count limits. */
  parent_trace_id: text('parent_trace_id'),
  /** A child job's: the grant its creating run held; it inherits only while that grant is the live one. */
  parent_grant_id: text('parent_grant_id'),
}, (t) => [
  check('jobs_origin_check', sql`${t.origin} in (${oneOf(JOB_ORIGINS)})`),
  check('jobs_id_format', sql`${t.id} ~ '^job_[a-z0-9]+$'`),
  check('jobs_overlap_policy_check', sql`${t.overlap_policy} in (${oneOf(OVERLAP_POLICIES)})`),
  check('jobs_misfire_policy_check', sql`${t.misfire_policy} in (${oneOf(MISFIRE_POLICIES)})`),
  // the firing loop scans live jobs, paused ones too: it records their instants as they fall due
  index('jobs_due_idx').on(t.next_fire_at).where(sql`${t.removed_at} is null`),
  index('jobs_parent_trace_idx').on(t.parent_trace_id).where(sql`${t.parent_trace_id} is not null`),
]);

export const jobGrants = pgTable('job_grants', {
  id: text('id').primaryKey(),
  job_id: text('job_id').notNull().references(() => jobs.id),
  cron_authorized: boolean('cron_authorized').notNull(),
  approval_id: text('approval_id'),
  approver: text('approver'),
  channel: text('channel'),
  approved_at: tz('approved_at'),
  definition_hash: text('definition_hash').notNull(),
  /** The tools the approver was shown as usable by the job's runs; the grant covers only these. Null: a grant from before 0008, which covers every tool offered. */
  tool_scope: text('tool_scope').array(),
  issued_at: tz('issued_at').notNull().defaultNow(),
  revoked_at: tz('revoked_at'),
  revoked_by: text('revoked_by'),
  revoked_why: text('revoked_why'),
}, (t) => [
  uniqueIndex('job_grants_one_live_per_job').on(t.job_id).where(sql`${t.revoked_at} is null`),
  index('job_grants_job_idx').on(t.job_id, t.issued_at),
]);

export const runs = pgTable('runs', {
  id: text('id').primaryKey(),
  job_id: text('job_id').notNull().references(() => jobs.id),
  nominal_at: tz('nominal_at').notNull(),
  trigger: text('trigger', { enum: RUN_TRIGGERS }).notNull().default('cron'),
  state: text('state', { enum: RUN_STATES }).notNull().default('queued'),
  skip_reason: text('skip_reason'),
  attempt: integer('attempt').notNull().default(0),
  lease_owner: text('lease_owner'),
  lease_expires_at: tz('lease_expires_at'),
  queued_at: tz('queued_at').notNull().defaultNow(),
  not_before: tz('not_before'),
  started_at: tz('started_at'),
  finished_at: tz('finished_at'),
  output: jsonb('output'),
  error: text('error'),
  denials: integer('denials').notNull().default(0),
  cron_authorized: boolean('cron_authorized'),
  grant_id: text('grant_id').references(() => jobGrants.id),
  execution_id: text('execution_id'),
  trace_id: text('trace_id'),
  /** Set at claim for a buffer_one job's run or a catch-up's: such a run holds the job's only running slot. */
  exclusive: boolean('exclusive').notNull().default(false),
  /** Part of a misfire run_all catch-up under overlap skip or buffer_one: runs alone, after the catch-up's earlier instants. */
  catch_up: boolean('catch_up').notNull().default(false),
}, (t) => [
  // I13: one run (or recorded skip) per scheduled instant, whoever inserts it; it also
  // serves a job's runs newest first (scanned backwards), so no second index on the pair
  unique('runs_job_nominal_unique').on(t.job_id, t.nominal_at),
  check('runs_id_format', sql`${t.id} ~ '^run_[a-z0-9]+$'`),
  check('runs_state_check', sql`${t.state} in (${oneOf(RUN_STATES)})`),
  check('runs_trigger_check', sql`${t.trigger} in (${oneOf(RUN_TRIGGERS)})`),
  index('runs_state_idx').on(t.state),
  // a catch-up's claim looks for its earlier instants still waiting: only those, so no other run pays for the index
  index('runs_catch_up_waiting_idx').on(t.job_id, t.nominal_at).where(sql`${t.catch_up} and ${t.state} in ('queued', 'retrying')`),
  index('runs_lease_idx').on(t.lease_expires_at).where(sql`${t.state} = 'running'`),
  // buffer_one: two workers claiming siblings at the same instant cannot both see "none running"
  uniqueIndex('runs_one_running_exclusive').on(t.job_id).where(sql`${t.state} = 'running' and ${t.exclusive}`),
]);

export const approvals = pgTable('approvals', {
  id: text('id').primaryKey(),
  call_hash: text('call_hash').notNull(),
  tool: text('tool').notNull(),
  args: jsonb('args').$type<Record<string, unknown>>().notNull(),
  risk: text('risk').notNull(),
  flags: jsonb('flags').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
  scopes: text('scopes').array().notNull().default(sql`'{}'::text[]`),
  allow_always: boolean('allow_always').notNull().default(false),
  channel: text('channel').notNull(),
  user_id: text('user_id').notNull().default(''),
  execution_id: text('execution_id'),
  trace_id: text('trace_id'),
  state: text('state', { enum: APPROVAL_STATES }).notNull().default('pending'),
  answer: text('answer', { enum: APPROVAL_ANSWERS }),
  answered_by: text('answered_by'),
  /** The process that asked (and waits): an answer from one of its descendants is not a person's (I3). */
  asked_from: jsonb('asked_from').$type<{ os_account: string; host: string; pid: number; started: string; boot_id?: string; pid_ns?: string }>(),
  /** The OS account and host the answer came from; answered_by is only the name the answerer gave. */
  answered_from: jsonb('answered_from').$type<{ os_account: string; host: string }>(),
  answered_at: tz('answered_at'),
  /** A cronjob create/update: the tools its prompt listed as usable by the job's runs, computed where the call waits. */
  tool_scope: text('tool_scope').array(),
  /** The hash of the code shown only where the request was asked (answer-code.ts); null on requests from before codes. */
  code_hash: text('code_hash'),
  /** The answer keyed by that code: the asking session accepts no answer without it, whoever wrote the row. */
  answer_proof: text('answer_proof'),
  expires_at: tz('expires_at').notNull(),
  created_at: tz('created_at').notNull().defaultNow(),
}, (t) => [
  check('approvals_state_check', sql`${t.state} in (${oneOf(APPROVAL_STATES)})`),
  check('approvals_answer_check', sql`${t.answer} is null or ${t.answer} in (${oneOf(APPROVAL_ANSWERS)})`),
  index('approvals_state_idx').on(t.state, t.created_at),
]);

export const allowlistRecords = pgTable('allowlist_records', {
  id: text('id').primaryKey(),
  tool: text('tool').notNull(),
  scope: text('scope').notNull(),
  created_by: text('created_by').notNull(),
  created_at: tz('created_at').notNull().defaultNow(),
  reason: text('reason').notNull(),
  approval_id: text('approval_id'),
  revoked_at: tz('revoked_at'),
  revoked_by: text('revoked_by'),
  revoked_why: text('revoked_why'),
}, (t) => [
  uniqueIndex('allowlist_one_live_per_scope').on(t.tool, t.scope).where(sql`${t.revoked_at} is null`),
]);

export const auditEvents = pgTable('audit_events', {
  // assigned as previous + 1 under the chain lock, so a gap means a removed row
  // (an identity sequence would leave gaps on rollback)
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  at: tz('at').notNull().defaultNow(),
  kind: text('kind').notNull(),
  actor: text('actor'),
  job_id: text('job_id'),
  run_id: text('run_id'),
  execution_id: text('execution_id'),
  trace_id: text('trace_id'),
  step: integer('step'),
  rule: text('rule'),
  outcome: text('outcome'),
  risk: text('risk'),
  reason: text('reason'),
  data: jsonb('data').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
  prev_hash: text('prev_hash').notNull(),
  hash: text('hash').notNull(),
}, (t) => [
  index('audit_events_job_idx').on(t.job_id, t.seq),
  // a run's records (runs list's AUTH and TRIGGER cells, runs show, audit list --run): by run, not by the whole job's history
  index('audit_events_run_idx').on(t.run_id, t.kind, t.seq).where(sql`${t.run_id} is not null`),
  index('audit_events_at_idx').on(t.at),
  index('audit_events_prev_hash_idx').on(t.prev_hash),
]);

/**
 * Audit records moved to a file by `audit archive`: the chain now begins after last_seq, whose
 * hash the first remaining record points at. Only the newest row matters to `audit verify`.
 */
export const auditArchives = pgTable('audit_archives', {
  id: text('id').primaryKey(),
  first_seq: bigint('first_seq', { mode: 'number' }).notNull(),
  last_seq: bigint('last_seq', { mode: 'number' }).notNull(),
  last_hash: text('last_hash').notNull(),
  /** Where the chain stood before the archived records: the previous archive's last record, or the genesis. */
  after_seq: bigint('after_seq', { mode: 'number' }).notNull(),
  after_hash: text('after_hash').notNull(),
  records: bigint('records', { mode: 'number' }).notNull(),
  before: tz('before').notNull(),
  file: text('file').notNull(),
  file_sha256: text('file_sha256').notNull(),
  archived_by: text('archived_by').notNull(),
  archived_at: tz('archived_at').notNull().defaultNow(),
}, (t) => [
  check('audit_archives_id_format', sql`${t.id} ~ '^arc_[a-z0-9]+$'`),
  uniqueIndex('audit_archives_last_seq').on(t.last_seq),
]);

/** Results of side-effecting tool calls by idempotency key: a replay returns them instead of repeating the effect. */
export const toolEffects = pgTable('tool_effects', {
  idempotency_key: text('idempotency_key').primaryKey(),
  tool: text('tool').notNull(),
  result: jsonb('result').$type<Record<string, unknown>>().notNull(),
  created_at: tz('created_at').notNull().defaultNow(),
});

export type JobRow = typeof jobs.$inferSelect;
export type GrantRow = typeof jobGrants.$inferSelect;
export type RunRow = typeof runs.$inferSelect;
export type ApprovalRow = typeof approvals.$inferSelect;
export type AllowlistRow = typeof allowlistRecords.$inferSelect;
export type AuditRow = typeof auditEvents.$inferSelect;
export type AuditArchiveRow = typeof auditArchives.$inferSelect;
