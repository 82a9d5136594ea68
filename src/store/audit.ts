import { and, asc, desc, eq, gt, gte, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import { canonicalJson, sha256 } from '../util/canonical-json.ts';
import { redact } from '../util/redact.ts';
import { namedQuery, type Executor, type NamedStatement } from './db.ts';
import { pgColumn } from './pg-array.ts';
import { violatesCheck, violatesUnique } from './pg-errors.ts';
import { auditEvents, type AuditRow } from './schema.ts';

/** prev_hash of the first record. */
export const GENESIS_HASH = '0'.repeat(64);

/** Advisory lock class for "append to this schema's audit chain"; the schema is the second key. */
const AUDIT_LOCK_CLASS = 0x61756474; // 'audt'

export interface AuditInput {
  readonly kind: string;
  readonly actor?: string | null;
  readonly job_id?: string | null;
  readonly run_id?: string | null;
  readonly execution_id?: string | null;
  readonly trace_id?: string | null;
  readonly step?: number | null;
  readonly rule?: string | null;
  readonly outcome?: string | null;
  readonly risk?: string | null;
  readonly reason?: string | null;
  readonly data?: Record<string, unknown>;
}

/**
 * The tool call behind a change (a cronjob or child-job call): the change's records carry its execution and
 * trace ids, so `audit list` leads from a job.created or grant.issued line to the gate decision that let it through.
 */
export interface CallIds {
  readonly execution_id: string;
  readonly trace_id: string;
}

/** The id columns of a record written for a call; none for a change from the command line. */
export function callColumns(call: CallIds | undefined): Pick<AuditInput, 'execution_id' | 'trace_id'> {
  return call ? { execution_id: call.execution_id, trace_id: call.trace_id } : {};
}

/**
 * The job a cronjob call names (update, pause, remove, run by id): its decision and approval records are filed
 * under that job, so `audit list --job` shows who asked for a change and who approved or refused it.
 */
export function jobNamedByCall(tool: string, args: unknown): string | null {
  const id = tool === 'cronjob' && args !== null && typeof args === 'object' ? (args as { id?: unknown }).id : undefined;
  return typeof id === 'string' && /^job_[A-Za-z0-9]+$/.test(id) ? id : null;
}

type Content = Omit<AuditRow, 'hash'>;

/** The hashed form of a record: every column but `hash`, `at` as ISO text. */
export function auditHash(row: Content): string {
  const { seq, at, kind, actor, job_id, run_id, execution_id, trace_id, step, rule, outcome, risk, reason, data, prev_hash } = row;
  const content = { seq, at: at.toISOString(), kind, actor, job_id, run_id, execution_id, trace_id, step, rule, outcome, risk, reason, data, prev_hash };
  return sha256(prev_hash + canonicalJson(content));
}

/** Appends one record to the chain; see appendAudits. */
export async function appendAudit(exec: Executor, event: AuditInput): Promise<AuditRow> {
  const [row] = await appendAudits(exec, [event]);
  return row!;
}

/**
 * Appends records in order, credentials redacted first (I11). The transaction-scoped
 * advisory lock makes concurrent writers (any replica) take turns, so the chain stays
 * one line; inside a caller's transaction the lock is held until it commits.
 * Needs READ COMMITTED (the default): the tail is read after the lock is taken.
 */
export async function appendAudits(exec: Executor, events: readonly AuditInput[]): Promise<AuditRow[]> {
  if (events.length === 0) return [];
  return exec.transaction((tx) => appendInTransaction(tx, events));
}

/**
 * appendAudits for a caller already in a transaction (no savepoint). `onClock` gets the database clock
 * minus ours, read around the one statement that reads the clock: the insert and the commit that follow
 * may take long under load, and must not count as skew.
 */
export async function appendInTransaction(tx: Executor, events: readonly AuditInput[], onClock?: (skewMs: number) => void): Promise<AuditRow[]> {
  if (events.length === 0) return [];
  await lockAuditChain(tx);
  const sentAt = Date.now();
  // never stamped earlier than the record it follows, whose time may come from another writer's clock
  const tail = await tx.execute<{ seq: string | null; hash: string | null; now: Date; clock: Date }>(sql`
    select (select seq from ${auditEvents} order by seq desc limit 1) as seq,
           (select hash from ${auditEvents} order by seq desc limit 1) as hash,
           greatest(date_trunc('milliseconds', clock_timestamp()), (select at from ${auditEvents} order by seq desc limit 1)) as now,
           clock_timestamp() as clock`);
  const t = tail.rows[0]!;
  onClock?.(new Date(t.clock).getTime() - (sentAt + Date.now()) / 2);
  const rows = chainRows({ seq: t.seq === null ? 0 : Number(t.seq), hash: t.hash ?? GENESIS_HASH }, new Date(t.now), events);
  await tx.insert(auditEvents).values(rows);
  return rows;
}

/** Takes the chain lock until the transaction ends: appends (any replica) wait, archives move the start safely. */
export async function lockAuditChain(tx: Executor): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${AUDIT_LOCK_CLASS}, hashtext(current_schema()))`);
}

/** Whether `row` is in the chain as written: after a commit whose answer was lost, did it happen? */
export async function isCommitted(exec: Executor, row: Pick<AuditRow, 'seq' | 'hash'>): Promise<boolean> {
  const found = await exec.execute<{ hash: string }>(sql`select hash from ${auditEvents} where seq = ${row.seq}`);
  return found.rows[0]?.hash === row.hash;
}

/** The chain's last record as a writer last saw it. */
export interface ChainTail {
  readonly seq: number;
  readonly hash: string;
}

/** The rows `events` become after `tail`, stamped `at`: what appendAfter writes, known before it is sent. */
export function chainRows(tail: ChainTail, at: Date, events: readonly AuditInput[]): AuditRow[] {
  let seq = tail.seq;
  let prev = tail.hash;
  return events.map((e) => {
    const content: Content = { seq: ++seq, at, prev_hash: prev, ...clean(e) };
    prev = auditHash(content);
    return { ...content, hash: prev };
  });
}

/**
 * Appends `rows` (chainRows after the tail a writer last wrote) in one statement:
 * the chain lock is taken before any row goes in, and the primary key on seq
 * refuses the rows if another writer appended since. Returns null then; the
 * caller's transaction, if any, is aborted, and it must try again with
 * appendAudits. `changes` go in the same statement: they commit with the
 * records or not at all. Several must share a name and change different rows
 * (NamedStatement.target), since a row changed twice in one statement keeps one change.
 */
export async function appendAfter(
  exec: Executor, rows: readonly AuditRow[], changes: readonly NamedStatement<unknown>[] = [],
): Promise<{ rows: readonly AuditRow[]; changed: unknown[] } | null> {
  const columns: readonly ((r: AuditRow) => string | number | null)[] = [
    (r) => r.seq, (r) => r.at.toISOString(), (r) => r.kind, (r) => r.actor, (r) => r.job_id, (r) => r.run_id, (r) => r.execution_id,
    (r) => r.trace_id, (r) => r.step, (r) => r.rule, (r) => r.outcome, (r) => r.risk, (r) => r.reason, (r) => JSON.stringify(r.data),
    (r) => r.prev_hash, (r) => r.hash,
  ];
  const values = columns.map((f) => pgColumn(rows, f));
  try {
    if (changes.length === 0) {
      await namedQuery(exec, 'echo_audit_append_after', appendAfterText(0), values);
      return { rows, changed: [] };
    }
    if (changes.length === 1) {
      const [change] = changes as [NamedStatement<unknown>];
      const text = `with change as (${change.text}), appended as (${appendAfterText(change.values.length)}) select * from change`;
      const changed = await namedQuery(exec, `${change.name}_with_audit`, text, [...change.values, ...values]);
      return { rows, changed: [change.result(changed)] };
    }
    const { text, params } = sharedStatement(changes);
    const out = await namedQuery(exec, `${changes[0]!.name}_x${changes.length}_with_audit`, `${text}, appended as (${appendAfterText(params.length)}) ${selectEach(changes.length)}`, [...params, ...values]);
    return { rows, changed: changes.map((c, i) => c.result(out.filter((r) => r.echo_change === i).map(({ echo_change: _, ...raw }) => raw))) };
  } catch (err) {
    if (seqTaken(err)) return null;
    throw err;
  }
}

/** Several statements of one name as the CTEs change0…changeN of one statement, each one's parameters after the last's. */
function sharedStatement(changes: readonly NamedStatement<unknown>[]): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const ctes = changes.map((c, i) => {
    const offset = params.length;
    params.push(...c.values);
    return `change${i} as (${c.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`;
  });
  return { text: `with ${ctes.join(', ')}`, params };
}

/** Every change's returned rows, each tagged with the change it came from. */
const selectEach = (n: number) => Array.from({ length: n }, (_, i) => `select ${i} as echo_change, * from change${i}`).join(' union all ');

/** The insert of appendAfter, its parameters numbered from offset + 1. */
function appendAfterText(offset: number): string {
  const p = (n: number) => `$${offset + n}`;
  return `
  insert into audit_events (seq, at, kind, actor, job_id, run_id, execution_id, trace_id, step, rule, outcome, risk, reason, data, prev_hash, hash)
  select v.seq, v.at, v.kind, v.actor, v.job_id, v.run_id, v.execution_id, v.trace_id, v.step, v.rule, v.outcome, v.risk, v.reason, v.data::jsonb, v.prev_hash, v.hash
  from (select pg_advisory_xact_lock(${AUDIT_LOCK_CLASS}, hashtext(current_schema()))) as chain_lock,
    unnest(${p(1)}::bigint[], ${p(2)}::timestamptz[], ${p(3)}::text[], ${p(4)}::text[], ${p(5)}::text[], ${p(6)}::text[], ${p(7)}::text[], ${p(8)}::text[], ${p(9)}::int[],
           ${p(10)}::text[], ${p(11)}::text[], ${p(12)}::text[], ${p(13)}::text[], ${p(14)}::text[], ${p(15)}::text[], ${p(16)}::text[])
    as v(seq, at, kind, actor, job_id, run_id, execution_id, trace_id, step, rule, outcome, risk, reason, data, prev_hash, hash)`;
}

/**
 * Someone else appended first: the seq is taken, or it is below the floor an archive set
 * (the rows after a stale tail were archived and deleted, so no unique violation can say so).
 */
const seqTaken = (err: unknown): boolean => violatesUnique(err, 'audit_events_pkey') || violatesCheck(err, AUDIT_SEQ_FLOOR);

/** The name the floor trigger (migration 0012) reports: no record may be added at or below the archived ones. */
export const AUDIT_SEQ_FLOOR = 'audit_events_seq_floor';

/** The OS account and host a command-line process runs as; null in the daemon, which is named by its actor. */
let processOrigin: { readonly os_account: string; readonly host: string } | null = null;

/**
 * Set once by the CLI: each record it writes then names, as `data.from`, the account and host behind the name its
 * actor column gives (`--as` is only what the caller says), unless the record names its origin already
 * (`from`, a decision's `decided_by`). Records before this build also used `origin` for an answer's account
 * and for a child job's kind (now `job_origin`); readers take both (cli/authority.ts recordFrom).
 */
export function setRecordOrigin(from: { readonly os_account: string; readonly host: string } | null): void {
  processOrigin = from;
}

function withOrigin(data: Record<string, unknown>): Record<string, unknown> {
  if (!processOrigin || 'from' in data || 'decided_by' in data) return data;
  return { ...data, from: processOrigin };
}

/** Exactly what PostgreSQL will hand back: nulls for absent fields, JSON-safe data, no NULs. */
function clean(e: AuditInput): Omit<Content, 'seq' | 'at' | 'prev_hash'> {
  const text = (v: string | null | undefined) => (v === undefined || v === null ? null : stripNul(redact(v)));
  return {
    kind: text(e.kind) ?? '',
    actor: text(e.actor),
    job_id: text(e.job_id),
    run_id: text(e.run_id),
    execution_id: text(e.execution_id),
    trace_id: text(e.trace_id),
    step: e.step ?? null,
    rule: text(e.rule),
    outcome: text(e.outcome),
    risk: text(e.risk),
    reason: text(e.reason),
    data: jsonSafe(redact(withOrigin(e.data ?? {}))),
  };
}

/** NUL and unpaired surrogates (a model can send "\\ud800"): jsonb refuses both, which would lose the record. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const NEEDS_CLEANING = /[\u0000\uD800-\uDFFF]/;
const stripNul = (s: string) => (NEEDS_CLEANING.test(s) ? s.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD') : s);

/** A JSON copy PostgreSQL's jsonb accepts: every string and every key cleaned. */
export function jsonSafe<T>(value: T): T {
  const text = JSON.stringify(value);
  return (text === undefined ? null : cleanStrings(JSON.parse(text))) as T;
}

function cleanStrings(v: unknown): unknown {
  if (typeof v === 'string') return stripNul(v);
  if (Array.isArray(v)) return v.map(cleanStrings);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [stripNul(k), cleanStrings(x)]));
  return v;
}

export interface AuditFilter {
  readonly job_id?: string;
  readonly run_id?: string;
  readonly kind?: string;
  readonly outcome?: string;
  readonly rule?: string;
  /** One call's or run's records: a daemon run's trace is its run id; an attended call's is in its records. */
  readonly trace_id?: string;
  readonly since?: Date;
  readonly until?: Date;
  readonly afterSeq?: number;
  /** Only records before this one (`audit list --before`: the next page of a long history). */
  readonly beforeSeq?: number;
  /** With job_id: these records too (jobCreationSeqs: the job's creating call, filed under no job). */
  readonly with_seqs?: readonly number[];
}

function where(f: AuditFilter): SQL | undefined {
  const job = f.job_id ? eq(auditEvents.job_id, f.job_id) : undefined;
  return and(
    job && f.with_seqs?.length ? or(job, inArray(auditEvents.seq, [...f.with_seqs])) : job,
    f.run_id ? eq(auditEvents.run_id, f.run_id) : undefined,
    f.kind ? eq(auditEvents.kind, f.kind) : undefined,
    f.outcome ? eq(auditEvents.outcome, f.outcome) : undefined,
    f.rule ? eq(auditEvents.rule, f.rule) : undefined,
    f.trace_id ? eq(auditEvents.trace_id, f.trace_id) : undefined,
    f.since ? gte(auditEvents.at, f.since) : undefined,
    f.until ? lt(auditEvents.at, f.until) : undefined,
    f.afterSeq !== undefined ? gt(auditEvents.seq, f.afterSeq) : undefined,
    f.beforeSeq !== undefined ? lt(auditEvents.seq, f.beforeSeq) : undefined,
  );
}

/** How far before its job.created record the creating call's gate decision is looked for (other writers' records in between). */
const DECISION_WINDOW = 10_000;
/** How far before that decision its approval request is looked for: the wait for a person's answer may be long. */
const REQUEST_WINDOW = 200_000;

/**
 * The records of a job's creating call, which name no job (the job had no id yet): the cronjob create call's gate
 * decision (the newest in the job.created record's trace before it, by the job's name when it can), and the
 * approval.requested, .answered and .answer_refused records of the approval that decision or the grant.issued names.
 * Read through the job index's no-job entries, within seq windows, so a long attended history is not scanned.
 */
export async function jobCreationSeqs(exec: Executor, jobId: string): Promise<number[]> {
  const { rows } = await exec.execute<{ seq: string }>(sql`
    with created as (
      select seq, trace_id, execution_id, data->>'name' as name from ${auditEvents}
      where job_id = ${jobId} and kind = 'job.created' and trace_id is not null
    ), decision as (
      select d.seq, d.trace_id, d.approval_id from created c cross join lateral (
        select e.seq, e.trace_id, e.data->>'approval_id' as approval_id from ${auditEvents} e
        where e.job_id is null and e.seq < c.seq and e.seq > c.seq - ${DECISION_WINDOW} and e.kind = 'gate.decision'
          and e.trace_id = c.trace_id and e.execution_id is not distinct from c.execution_id
          and e.data->>'tool' = 'cronjob' and e.data->'args'->>'action' = 'create'
        order by (e.data->'args'->>'name' is not distinct from c.name) desc, e.seq desc limit 1) d
    ), asked as (
      select approval_id from decision where approval_id is not null
      union select data->>'approval_id' from ${auditEvents} where job_id = ${jobId} and kind = 'grant.issued'
        and trace_id in (select trace_id from created) and data->>'approval_id' is not null
    )
    select seq from decision
    union
    select a.seq from decision d cross join lateral (
      select e.seq from ${auditEvents} e
      where e.job_id is null and e.seq < d.seq and e.seq > d.seq - ${REQUEST_WINDOW} and e.trace_id = d.trace_id
        and e.kind in ('approval.requested', 'approval.answered', 'approval.answer_refused') and e.data->>'approval_id' in (select approval_id from asked)) a`);
  return rows.map((r) => Number(r.seq));
}

/** The values a column holds in the log, for naming the one meant when a filter matches none. */
export async function auditValues(exec: Executor, column: 'outcome' | 'rule'): Promise<string[]> {
  const rows = await exec.selectDistinct({ v: auditEvents[column] }).from(auditEvents).limit(1000);
  return rows.map((r) => r.v).filter((v): v is string => v !== null).sort();
}

/** Newest first unless order is 'asc'. */
export async function listAudit(exec: Executor, f: AuditFilter & { limit?: number; order?: 'asc' | 'desc' } = {}): Promise<AuditRow[]> {
  return exec.select().from(auditEvents).where(where(f))
    .orderBy(f.order === 'asc' ? asc(auditEvents.seq) : desc(auditEvents.seq))
    .limit(f.limit ?? 100);
}

/** Every matching record in chain order, fetched in batches (for `audit export`). */
export async function* exportAudit(exec: Executor, f: AuditFilter = {}, batchSize = 1000): AsyncGenerator<AuditRow> {
  let after = f.afterSeq ?? 0;
  for (;;) {
    const batch = await listAudit(exec, { ...f, afterSeq: after, order: 'asc', limit: batchSize });
    yield* batch;
    if (batch.length < batchSize) return;
    after = batch[batch.length - 1]!.seq;
  }
}

/** The last record's seq and hash: an operator can note it elsewhere to detect a truncated tail. */
export async function auditHead(exec: Executor): Promise<{ seq: number; hash: string }> {
  const [row] = await exec.select({ seq: auditEvents.seq, hash: auditEvents.hash }).from(auditEvents).orderBy(desc(auditEvents.seq)).limit(1);
  return row ?? { seq: 0, hash: GENESIS_HASH };
}
