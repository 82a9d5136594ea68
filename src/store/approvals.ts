import { and, desc, eq, gt, lte, sql } from 'drizzle-orm';
import type { Clock } from '../approval/ports.ts';
import { systemClock } from '../util/system-ports.ts';
import { pidSpace, processIdentity, thisProcess, type ProcessRef } from '../util/process-identity.ts';
import { redact } from '../util/redact.ts';
import { answerProof, codeMatches } from './answer-code.ts';
import { appendAudit, jobNamedByCall, jsonSafe } from './audit.ts';
import { answerDiffs, answerRecords, diffText } from './chain-tables.ts';
import type { Executor } from './db.ts';
import { newId } from './ids.ts';
import { approvals, type ApprovalAnswerKind, type ApprovalRow, type ApprovalState } from './schema.ts';

export interface NewApproval {
  /** The gate's request id; generated (`apr_…`) when absent. */
  readonly id?: string;
  readonly call_hash: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly risk: string;
  readonly flags?: readonly unknown[];
  readonly scopes?: readonly string[];
  readonly allow_always?: boolean;
  readonly channel: string;
  readonly user_id?: string;
  readonly execution_id?: string | null;
  readonly trace_id?: string | null;
  /** A cronjob create/update: the tools its prompt lists as usable by the job's runs; the grant will cover these. */
  readonly tool_scope?: readonly string[] | null;
  readonly expires_at: Date;
  /** The asking process, where it is known (a process with /proc). */
  readonly asked_from?: AskingProcess | null;
  /** The hash of the code only the asking session shows (answer-code.ts); an answer must give the code. */
  readonly code_hash?: string | null;
}

/** The account, host and process of whoever waits for the answer. */
export interface AskingProcess extends ProcessRef {
  readonly os_account: string;
  readonly host: string;
  /** Where pid and started mean something: the kernel's boot id and the pid namespace (absent on older requests). */
  readonly boot_id?: string;
  readonly pid_ns?: string;
}

/** Persists a pending request before anyone waits on it, so it survives a restart. */
export async function createApproval(exec: Executor, a: NewApproval): Promise<ApprovalRow> {
  return exec.transaction(async (tx) => {
    const [row] = await tx.insert(approvals).values({
      id: a.id ?? newId('apr'), call_hash: a.call_hash, tool: a.tool, args: jsonSafe(redact(a.args)), risk: a.risk,
      flags: jsonSafe(redact([...(a.flags ?? [])])), scopes: [...(a.scopes ?? [])], allow_always: a.allow_always ?? false,
      channel: a.channel, user_id: a.user_id ?? '', execution_id: a.execution_id ?? null, trace_id: a.trace_id ?? null,
      tool_scope: a.tool_scope ? [...a.tool_scope] : null, asked_from: a.asked_from ?? null, code_hash: a.code_hash ?? null,
      // answers are judged on the database clock, so the expiry is too: the same wait from now, whatever this host's clock says
      expires_at: sql`now() + make_interval(secs => ${Math.max(0, (a.expires_at.getTime() - Date.now()) / 1000)}::double precision)`,
    }).returning();
    await appendAudit(tx, {
      kind: 'approval.requested', actor: a.user_id ?? null, job_id: jobNamedByCall(a.tool, a.args), execution_id: a.execution_id, trace_id: a.trace_id, risk: a.risk,
      data: { approval_id: row!.id, tool: a.tool, call_hash: a.call_hash, channel: a.channel, expires_at: row!.expires_at.toISOString(), ...(row!.tool_scope ? { tool_scope: row!.tool_scope } : {}) },
    });
    return row!;
  });
}

/** Why an answer was not accepted. */
export const ANSWER_REFUSALS = {
  not_found: 'No approval request has this id.',
  hash_mismatch: 'The answer is for a different call than the one waiting under this id.',
  expired: 'The request expired before it was answered.',
  withdrawn: 'The request was withdrawn: the session that asked stopped waiting (interrupted, its terminal closed, or it ended). Nothing waits for an answer; run the command again to ask anew.',
  already_answered: 'The request was already answered.',
  always_not_allowed: '"always" is not offered for this call (DANGEROUS, or nothing to scope it to).',
  from_asking_session: 'The answer came from a process started by the session that asked (a tool call of its own), not from a person (I3).',
  code_missing: 'This request takes an answer only with the code shown where it was asked (the asking terminal, or the error output of the command that asked): give it at the prompt, or on standard input without a terminal. A tool call of the asking session is not shown that code (I3).',
  code_wrong: 'The code given is not the one shown where this request was asked; the request still waits.',
  asker_gone: 'The process that asked has ended (interrupted, killed, or its terminal closed): nothing waits for this answer, so it would do nothing; the request is withdrawn. Run the command again to ask anew.',
} as const;

export type AnswerRefusal = keyof typeof ANSWER_REFUSALS;
export type AnswerResult =
  | { readonly ok: true; readonly approval: ApprovalRow }
  | { readonly ok: false; readonly refusal: AnswerRefusal; readonly reason: string; readonly approval: ApprovalRow | null };

/** Where an answer was given: the OS account and host of the process that recorded it. */
export interface AnswerOrigin {
  readonly os_account: string;
  readonly host: string;
  /** The answering process's ancestors, parent first: checked against the asking process, not recorded. */
  readonly ancestors?: readonly ProcessRef[];
  /** Where the answering process can see pids (see pidSpace), and how it tells whether one has ended. */
  readonly pidSpace?: { readonly boot_id: string; readonly pid_ns: string } | null;
  readonly hasEnded?: (p: ProcessRef) => boolean;
}

/**
 * How an answer reached the request, for its audit record (`data.answered_via`): at the prompt of the session
 * that asked, through `echo-agent approvals approve|deny` (another shell), or from some other process.
 */
export const ANSWER_VIA = {
  asking_session: 'answered at the prompt of the session that asked',
  approvals_command: 'answered with echo-agent approvals approve|deny, not at the asking prompt',
  other_process: 'answered by another process than the one that asked',
} as const;
export type AnswerVia = keyof typeof ANSWER_VIA;

/** Whether the asking process is known to have ended: only said from the same kernel and pid namespace. */
function askerGone(asked: AskingProcess | null, origin: AnswerOrigin | undefined): boolean {
  if (!asked?.boot_id || !asked.pid_ns || !origin?.pidSpace || !origin.hasEnded) return false;
  if (origin.pidSpace.boot_id !== asked.boot_id || origin.pidSpace.pid_ns !== asked.pid_ns) return false;
  return origin.hasEnded(asked);
}

/** Whether the answer comes from below the process that asked: a shell its model started, say. */
function fromAskingSession(asked: AskingProcess | null, origin: AnswerOrigin | undefined): boolean {
  if (!asked || !origin?.ancestors || origin.host !== asked.host) return false;
  return origin.ancestors.some((p) => p.pid === asked.pid && p.started === asked.started);
}

/**
 * How an answer came, when its caller does not say: the asking process itself answers only at its own prompt.
 * Null when it cannot be told (no /proc where the request was asked).
 */
function answeredVia(asked: AskingProcess | null): AnswerVia | null {
  const self = thisProcess();
  const space = pidSpace();
  if (!asked || !self) return null;
  const same = asked.host === processIdentity().host && asked.pid === self.pid && asked.started === self.started
    && (!asked.boot_id || asked.boot_id === space?.boot_id) && (!asked.pid_ns || asked.pid_ns === space?.pid_ns);
  return same ? 'asking_session' : 'other_process';
}

/** An answer counts only for this request id and this call hash, while the request is pending and unexpired. */
export async function answerApproval(
  exec: Executor,
  a: { id: string; call_hash: string; answer: ApprovalAnswerKind; answered_by: string; origin?: AnswerOrigin; code?: string; via?: AnswerVia },
): Promise<AnswerResult> {
  // answered_by is who the answerer says they are; origin is the account the answer really came from,
  // recorded as data.from like every other record a command writes (records before this build: data.origin)
  const origin = a.origin ? { os_account: a.origin.os_account, host: a.origin.host } : null;
  const from = origin ? { from: origin } : {};
  return exec.transaction(async (tx) => {
    const [found] = await tx.select({ row: approvals, expired: sql<boolean>`${approvals.expires_at} <= now()` })
      .from(approvals).where(eq(approvals.id, a.id)).for('update');
    const via = (row: ApprovalRow | null) => {
      const how = a.via ?? answeredVia(row?.asked_from ?? null);
      return how ? { answered_via: how } : {};
    };
    const refuse = async (refusal: AnswerRefusal, approval: ApprovalRow | null): Promise<AnswerResult> => {
      // filed under the job the request is about, as its request and answer are: a wrong code is part of that job's history
      await appendAudit(tx, {
        kind: 'approval.answer_refused', actor: a.answered_by, outcome: refusal, reason: ANSWER_REFUSALS[refusal],
        job_id: approval ? jobNamedByCall(approval.tool, approval.args) : null, risk: approval?.risk ?? null,
        execution_id: approval?.execution_id, trace_id: approval?.trace_id,
        data: { approval_id: a.id, ...(approval ? { tool: approval.tool } : {}), call_hash: a.call_hash, answer: a.answer, ...from, ...via(approval) },
      });
      return { ok: false, refusal, reason: ANSWER_REFUSALS[refusal], approval };
    };
    if (!found) return refuse('not_found', null);
    const { row, expired } = found;
    if (row.call_hash !== a.call_hash) return refuse('hash_mismatch', row);
    if (row.state !== 'pending') return refuse(row.state === 'expired' || row.state === 'withdrawn' ? row.state : 'already_answered', row);
    if (expired) {
      const [gone] = await tx.update(approvals).set({ state: 'expired' }).where(eq(approvals.id, a.id)).returning();
      return refuse('expired', gone!);
    }
    if (a.answer === 'always' && !row.allow_always) return refuse('always_not_allowed', row);
    // the code, not the process tree: a tool process that detached from the session (setsid) escapes the check below
    if (row.code_hash !== null) {
      if (a.code === undefined || a.code.trim() === '') return refuse('code_missing', row);
      if (!codeMatches(a.code, row.code_hash)) return refuse('code_wrong', row);
    }
    // a refusal too: a denial from there would let a tool call cancel what its session asked a person
    if (fromAskingSession(row.asked_from, a.origin)) return refuse('from_asking_session', row);
    // an approval nobody waits for would be reported as given and do nothing: withdraw the request instead
    if (askerGone(row.asked_from, a.origin)) {
      const [gone] = await tx.update(approvals).set({ state: 'withdrawn' }).where(eq(approvals.id, a.id)).returning();
      return refuse('asker_gone', gone!);
    }
    const proof = row.code_hash !== null && a.code !== undefined ? answerProof(a.code, { id: row.id, call_hash: row.call_hash, answer: a.answer, answered_by: a.answered_by }) : null;
    const [answered] = await tx.update(approvals).set({
      state: a.answer === 'deny' ? 'denied' : 'approved', answer: a.answer, answered_by: a.answered_by, answered_from: origin, answered_at: sql`now()`, answer_proof: proof,
    }).where(eq(approvals.id, a.id)).returning();
    await appendAudit(tx, {
      kind: 'approval.answered', actor: a.answered_by, outcome: a.answer, risk: row.risk, job_id: jobNamedByCall(row.tool, row.args),
      execution_id: row.execution_id, trace_id: row.trace_id,
      data: { approval_id: row.id, tool: row.tool, call_hash: row.call_hash, channel: row.channel, ...from, ...via(row) },
    });
    return { ok: true, approval: answered! };
  });
}

export async function getApproval(exec: Executor, id: string): Promise<ApprovalRow | null> {
  const [row] = await exec.select().from(approvals).where(eq(approvals.id, id));
  return row ?? null;
}

/** Newest first. Pending means answerable: a request past its expiry is not listed as pending, whether or not the reconciler has marked it yet. */
export async function listApprovals(exec: Executor, f: { state?: ApprovalState; limit?: number } = {}): Promise<ApprovalRow[]> {
  const answerable = f.state === 'pending' ? gt(approvals.expires_at, sql`now()`) : undefined;
  return exec.select().from(approvals).where(and(f.state ? eq(approvals.state, f.state) : undefined, answerable))
    .orderBy(desc(approvals.created_at), desc(approvals.id)).limit(f.limit ?? 100);
}

/**
 * Whether an answered row's answer counted, from the chain (the row is mutable, its approval.answered record is not):
 * `not_counted` names why not (no record, the row differs from it, no answer proof where a code was asked);
 * `answered_via`: how the answer came, as its record says (null: no record, or one before this was recorded).
 */
export interface AnswerStanding {
  readonly answered_via: AnswerVia | null;
  /** ANSWER_VIA's sentence for it. */
  readonly answered_via_text: string | null;
  readonly answered_record_seq: number | null;
  readonly counted: boolean;
  readonly not_counted: readonly string[];
}

/** The standing of each answered row (approved or denied), by id, in one query; other rows have none. */
export async function answerStandings(exec: Executor, rows: readonly ApprovalRow[]): Promise<Map<string, AnswerStanding>> {
  const answered = rows.filter((r) => r.state === 'approved' || r.state === 'denied');
  const records = await answerRecords(exec, answered.map((r) => r.id));
  return new Map(answered.map((r) => {
    const rec = records.get(r.id);
    const diffs = rec ? answerDiffs(r, rec) : [];
    const not = [
      ...(rec ? [] : ['no approval.answered record']),
      ...(diffs.length > 0 ? [`the row differs from its approval.answered record seq ${rec!.seq}: ${diffText(diffs)}`] : []),
      // a request that showed a code is answered with it, and the answer carries its proof (the gate checks it: approval.human.unverified)
      ...(r.code_hash !== null && r.answer_proof === null ? ['no answer proof'] : []),
    ];
    const given = rec?.data.answered_via;
    const via = typeof given === 'string' && Object.hasOwn(ANSWER_VIA, given) ? given as AnswerVia : null;
    return [r.id, {
      answered_via: via, answered_via_text: via ? ANSWER_VIA[via] : null,
      answered_record_seq: rec?.seq ?? null, counted: not.length === 0, not_counted: not,
    }];
  }));
}

/** Every pending request past its expiry (database clock) becomes expired; returns how many. */
export async function expireApprovals(exec: Executor): Promise<number> {
  const rows = await exec.update(approvals).set({ state: 'expired' })
    .where(and(eq(approvals.state, 'pending'), lte(approvals.expires_at, sql`now()`))).returning({ id: approvals.id });
  return rows.length;
}

/** How a wait ended without an answer: its time ran out, or the asker stopped waiting before that. */
export type WaitEnding = 'expired' | 'withdrawn';

/**
 * The waiter gave up: a still-pending request can no longer be answered. A withdrawal once the
 * expiry has passed (on the database clock, as answers are judged) is recorded as the expiry it is.
 */
export async function endWait(exec: Executor, id: string, ending: WaitEnding): Promise<ApprovalRow | null> {
  const state = ending === 'expired' ? sql`'expired'` : sql`case when ${approvals.expires_at} <= now() then 'expired' else 'withdrawn' end`;
  await exec.update(approvals).set({ state }).where(and(eq(approvals.id, id), eq(approvals.state, 'pending')));
  return getApproval(exec, id);
}

/**
 * Polls until the request is answered or `deadline` passes (then it is expired, so a late answer
 * is refused) or `signal` aborts (withdrawn, unless the abort says 'timeout': the gate's wait ran
 * out). Returns the final row; null if there is no such request.
 */
export async function waitForAnswer(
  exec: Executor,
  w: { id: string; deadline: Date; pollMs?: number; signal?: AbortSignal; clock?: Clock },
): Promise<ApprovalRow | null> {
  const clock = w.clock ?? systemClock;
  const pollMs = w.pollMs ?? 500;
  // one listener for the whole wait, not one per poll
  const abort = aborted(w.signal);
  for (;;) {
    const row = await getApproval(exec, w.id);
    if (!row || row.state !== 'pending') return row;
    const left = w.deadline.getTime() - clock.now().getTime();
    if (left <= 0) return endWait(exec, w.id, 'expired');
    if (w.signal?.aborted) return endWait(exec, w.id, w.signal.reason === 'timeout' ? 'expired' : 'withdrawn');
    await Promise.race([clock.sleep(Math.min(pollMs, left)), abort]);
  }
}

function aborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return new Promise(() => {});
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
