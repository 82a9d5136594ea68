import { appendAudit, appendAudits, type AuditInput } from './audit.ts';
import type { Executor } from './db.ts';
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
  readonly withChange?: <T>(change: (tx: Executor) => Promise<T>, event: AuditInput) => Promise<T>;
};

export function directAppend(exec: Executor): AuditAppend {
  return (event) => appendAudit(exec, event);
}

/** A state change and its audit record, through the writer when it can batch them, else one transaction. */
export function changeWithRecord<T>(exec: Executor, audit: AuditAppend, change: (tx: Executor) => Promise<T>, event: AuditInput): Promise<T> {
  if (audit.withChange) return audit.withChange(change, event);
  return exec.transaction(async (tx) => {
    const out = await change(tx);
    await appendAudit(tx, event);
    return out;
  });
}

interface Waiting {
  readonly event: AuditInput;
  readonly change?: (tx: Executor) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/** One item on its own: its change and its record in one transaction. */
async function writeOne(exec: Executor, w: Waiting): Promise<unknown> {
  return exec.transaction(async (tx) => {
    const out = w.change ? await w.change(tx) : undefined;
    const row = await appendAudit(tx, w.event);
    return w.change ? out : row;
  });
}

/**
 * Group commit for the chain. Records (and the state changes that go with them)
 * that arrive while a batch is being written go into the next batch: one lock,
 * one transaction, one fsync for all of them. Every caller still waits for its
 * own record to be committed, so nothing acts on a decision before its record
 * is durable (I8). Use it on a database handle, not inside a caller's transaction.
 */
export function groupCommitAppend(exec: Executor, maxBatch = 256): AuditAppend {
  const queue: Waiting[] = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, maxBatch);
        try {
          const results = await exec.transaction(async (tx) => {
            const outs: unknown[] = [];
            for (const w of batch) outs.push(w.change ? await w.change(tx) : undefined);
            const rows = await appendAudits(tx, batch.map((w) => w.event));
            return batch.map((w, i) => (w.change ? outs[i] : rows[i]));
          });
          batch.forEach((w, i) => w.resolve(results[i]));
        } catch {
          // one bad item must not fail its neighbours: retry each on its own
          for (const w of batch) await writeOne(exec, w).then(w.resolve, w.reject);
        }
      }
    } finally {
      writing = false;
    }
  };
  const enqueue = <T>(w: Omit<Waiting, 'resolve' | 'reject'>) => new Promise<T>((resolve, reject) => {
    queue.push({ ...w, resolve: resolve as (v: unknown) => void, reject });
    if (!writing) void drain();
  });
  const append = (event: AuditInput) => enqueue<AuditRow>({ event });
  return Object.assign(append, {
    ordered: true,
    withChange: <T>(change: (tx: Executor) => Promise<T>, event: AuditInput) => enqueue<T>({ event, change }),
  });
}
