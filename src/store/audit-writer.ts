import { appendAudit, appendAudits, type AuditInput } from './audit.ts';
import type { Executor } from './db.ts';
import type { AuditRow } from './schema.ts';

/**
 * Appends one audit record and resolves once it is committed. `ordered`: records
 * commit in the order they were appended, so a later record being durable means
 * every earlier one is too.
 */
export type AuditAppend = ((event: AuditInput) => Promise<AuditRow>) & { readonly ordered?: boolean };

export function directAppend(exec: Executor): AuditAppend {
  return (event) => appendAudit(exec, event);
}

interface Waiting {
  readonly event: AuditInput;
  readonly resolve: (row: AuditRow) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Group commit for the chain. Records that arrive while a batch is being
 * written go into the next batch: one lock, one transaction, one fsync for all
 * of them, instead of one each. Every caller still waits for its own record to
 * be committed, so nothing acts on a decision before its record is durable (I8).
 * Use it on a database handle, not inside a caller's transaction.
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
          const rows = await appendAudits(exec, batch.map((w) => w.event));
          batch.forEach((w, i) => w.resolve(rows[i]!));
        } catch {
          // one bad record must not fail its neighbours: retry each on its own
          for (const w of batch) await appendAudit(exec, w.event).then(w.resolve, w.reject);
        }
      }
    } finally {
      writing = false;
    }
  };
  const append = (event: AuditInput) => new Promise<AuditRow>((resolve, reject) => {
    queue.push({ event, resolve, reject });
    if (!writing) void drain();
  });
  return Object.assign(append, { ordered: true });
}
