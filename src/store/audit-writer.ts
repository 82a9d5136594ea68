import { appendAfter, appendAudit, appendInTransaction, chainRows, isCommitted, type AuditInput, type ChainTail } from './audit.ts';
import { runNamed, type Executor, type NamedStatement } from './db.ts';
import { CommittedAnswerLost, whileUnreachable } from './pg-errors.ts';
import type { AuditRow } from './schema.ts';

/**
 * Appends one audit record and resolves once it is committed. `ordered`: records
 * commit in the order they were appended, so a later record being durable means
 * every earlier one is too.
 */
export type AuditAppend = ((event: AuditInput) => Promise<AuditRow>) & {
  readonly ordered?: boolean;
  /**
   * Runs `change` and appends `event` in one transaction: the state change and
   * its record commit together or not at all.
   */
  readonly withChange?: <T>(change: Change<T>, event: AuditInput) => Promise<T>;
};

/** A state change: code run in the transaction, or one statement the writer may send together with its record. */
export type Change<T> = ((tx: Executor) => Promise<T>) | NamedStatement<T>;

const apply = <T>(tx: Executor, change: Change<T>): Promise<T> => (typeof change === 'function' ? change(tx) : runNamed(tx, change));

export function directAppend(exec: Executor): AuditAppend {
  return (event) => appendAudit(exec, event);
}

/** A state change and its audit record, through the writer when it can batch them, else one transaction. */
export function changeWithRecord<T>(exec: Executor, audit: AuditAppend, change: Change<T>, event: AuditInput): Promise<T> {
  if (audit.withChange) return audit.withChange(change, event);
  return exec.transaction(async (tx) => {
    const out = await apply(tx, change);
    await appendAudit(tx, event);
    return out;
  });
}

interface Waiting {
  readonly event: AuditInput;
  readonly change?: Change<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/** One item on its own: its change and its record in one transaction. */
function writeOne(exec: Executor, w: Waiting): Promise<unknown> {
  return w.change ? changeWithRecord(exec, directAppend(exec), w.change, w.event) : appendAudit(exec, w.event);
}

/** What each caller gets back: its change's result, or its record when it had no change. */
const resultsOf = (batch: readonly Waiting[], outs: readonly unknown[], rows: readonly AuditRow[]) => batch.map((w, i) => (w.change ? outs[i] : rows[i]));

/** At most this many changes go into one statement; a batch with more takes a transaction. */
const MAX_SHARED_CHANGES = 64;

/**
 * The batch's changes, in order, when they can be sent with its records as one statement: none, one
 * statement, or statements of one name that change different rows. Null when they need a transaction.
 */
function oneStatement(batch: readonly Waiting[]): NamedStatement<unknown>[] | null {
  const changes = batch.flatMap((w) => (w.change ? [w.change] : []));
  if (changes.some((c) => typeof c === 'function')) return null;
  const statements = changes as NamedStatement<unknown>[];
  if (statements.length <= 1) return statements;
  if (statements.length > MAX_SHARED_CHANGES) return null;
  const targets = new Set(statements.map((c) => c.target));
  return targets.has(undefined) || targets.size < statements.length || statements.some((c) => c.name !== statements[0]!.name) ? null : statements;
}

/** Thrown inside a batch's transaction to roll its changes back when the remembered tail was stale. */
const STALE_TAIL = Symbol('stale chain tail');

/**
 * Group commit for the chain. Records (and the state changes that go with them)
 * that arrive while a batch is being written go into the next batch: one lock,
 * one transaction, one fsync for all of them. Every caller still waits for its
 * own record to be committed, so nothing acts on a decision before its record
 * is durable (I8). Use it on a database handle, not inside a caller's transaction.
 *
 * The writer remembers the tail it last wrote, so a batch without state changes
 * is one statement (appendAfter); when another writer (a replica, the CLI) has
 * appended since, the batch is written again after reading the tail under the lock.
 */
export function groupCommitAppend(exec: Executor, maxBatch = 256): AuditAppend {
  const queue: Waiting[] = [];
  let writing = false;
  let tail: (ChainTail & { at: Date }) | null = null;
  // the database clock minus ours, learnt whenever the tail is read: records are stamped on the database clock
  let skewMs = 0;
  const learnClock = (skew: number) => { skewMs = skew; };
  const stamp = () => {
    const now = new Date(Date.now() + skewMs);
    return tail && tail.at > now ? tail.at : now;
  };
  const learn = (rows: readonly AuditRow[]) => {
    const last = rows[rows.length - 1];
    if (last) tail = { seq: last.seq, hash: last.hash, at: last.at };
  };
  const changesOf = async (tx: Executor, batch: readonly Waiting[]) => {
    const outs: unknown[] = [];
    for (const w of batch) outs.push(w.change ? await apply(tx, w.change) : undefined);
    return outs;
  };
  /**
   * What the batch being written tried to commit: its records as soon as they are known, and the
   * changes' results once they ran. A failure may come after the commit (the connection dropped
   * before the answer): this is how the writer finds out, instead of writing them all again.
   */
  let attempt: { rows: readonly AuditRow[]; outs?: unknown[] } | null = null;
  /** The batch after the remembered tail; null when another writer appended since. */
  const writeAfter = async (batch: readonly Waiting[], known: ChainTail): Promise<{ outs: unknown[]; rows: readonly AuditRow[] } | null> => {
    const rows = chainRows(known, stamp(), batch.map((w) => w.event));
    attempt = { rows };
    const statements = oneStatement(batch);
    if (statements) {
      // the changes and every record in a single statement: no transaction held open across round trips
      const done = await appendAfter(exec, rows, statements);
      if (!done) return null;
      let k = 0;
      return { outs: batch.map((w) => (w.change ? done.changed[k++] : undefined)), rows: done.rows };
    }
    return exec.transaction(async (tx) => {
      const outs = await changesOf(tx, batch);
      attempt = { rows, outs };
      const done = await appendAfter(tx, rows);
      if (!done) throw STALE_TAIL;
      return { outs, rows: done.rows };
    }).catch((err: unknown) => { if (err === STALE_TAIL) return null; throw err; });
  };
  const write = async (batch: readonly Waiting[]): Promise<unknown[]> => {
    const fast = tail ? await writeAfter(batch, tail) : null;
    if (fast) {
      learn(fast.rows);
      return resultsOf(batch, fast.outs, fast.rows);
    }
    attempt = null;
    const { outs, rows } = await exec.transaction(async (tx) => {
      const outs = await changesOf(tx, batch);
      const rows = await appendInTransaction(tx, batch.map((w) => w.event), learnClock);
      attempt = { rows, outs };
      return { outs, rows };
    });
    learn(rows);
    return resultsOf(batch, outs, rows);
  };
  /** After a failed batch: did it commit all the same? Throws when that cannot be found out. */
  const committedAnyway = async (): Promise<{ rows: readonly AuditRow[]; outs?: unknown[] } | null> => {
    const tried = attempt;
    const last = tried?.rows[tried.rows.length - 1];
    return last && (await isCommitted(exec, last)) ? tried : null;
  };
  const settle = async (batch: readonly Waiting[], failure: unknown) => {
    tail = null;
    let committed: Awaited<ReturnType<typeof committedAnyway>>;
    try {
      // asked again while the database is away (~30 s, a restart): the pool may first hand out a connection that broke
      // with the one that failed. Every record waits meanwhile; none could be written anyway
      committed = await whileUnreachable(committedAnyway, { delaysMs: [100, 500, 1_000, 2_000, 4_000, 8_000, 15_000] });
    } catch {
      // neither written again nor taken as done: a second write could repeat a change that happened
      for (const w of batch) w.reject(failure);
      return;
    }
    if (committed) {
      learn(committed.rows);
      batch.forEach((w, i) => {
        if (!w.change) return w.resolve(committed.rows[i]);
        if (committed.outs) return w.resolve(committed.outs[i]);
        w.reject(new CommittedAnswerLost(`${w.event.kind}: the change and its record were committed, but the answer was lost with the connection`, { cause: failure }));
      });
      return;
    }
    // one bad item must not fail its neighbours: retry each on its own
    for (const w of batch) await writeOne(exec, w).then(w.resolve, w.reject);
  };
  const drain = async () => {
    writing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, maxBatch);
        try {
          const results = await write(batch);
          batch.forEach((w, i) => w.resolve(results[i]));
        } catch (err) {
          await settle(batch, err);
        } finally {
          attempt = null;
        }
      }
    } finally {
      writing = false;
    }
  };
  const enqueue = <T>(w: Omit<Waiting, 'resolve' | 'reject'>) => new Promise<T>((resolve, reject) => {
    queue.push({ ...w, resolve: resolve as (v: unknown) => void, reject });
    if (!writing) {
      writing = true;
      // after the current tick, so records appended back to back share the batch
      queueMicrotask(() => void drain());
    }
  });
  const append = (event: AuditInput) => enqueue<AuditRow>({ event });
  return Object.assign(append, {
    ordered: true,
    withChange: <T>(change: Change<T>, event: AuditInput) => enqueue<T>({ event, change: change as Change<unknown> }),
  });
}

/**
 * A record that should commit with the next one rather than on its own, such as
 * `run.started` with the run's first decision. An ordered writer gets it just
 * before the next record, in the same batch; any other writer gets it at once.
 * `lead()` sends it if nothing has yet, and resolves when it is committed.
 */
export function withLeadingRecord(audit: AuditAppend, lead: AuditInput): { readonly audit: AuditAppend; lead(): Promise<AuditRow> } {
  if (!audit.ordered) {
    const sent = audit(lead);
    return { audit, lead: () => sent };
  }
  let sent: Promise<AuditRow> | null = null;
  const send = (): Promise<AuditRow> => {
    if (!sent) {
      sent = audit(lead);
      sent.catch(() => {}); // the owner awaits lead()
    }
    return sent;
  };
  const { withChange } = audit;
  const wrapped: AuditAppend = Object.assign((event: AuditInput) => {
    void send();
    return audit(event);
  }, {
    ordered: true,
    ...(withChange ? { withChange: <T>(change: Change<T>, event: AuditInput) => { void send(); return withChange(change, event); } } : {}),
  });
  return { audit: wrapped, lead: send };
}
