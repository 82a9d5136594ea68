import type { Logger } from 'pino';
import type { Config } from '../config/schema.ts';
import type { AuditAppend } from '../store/audit-writer.ts';
import type { AuditInput } from '../store/audit.ts';
import { describeFailure, neverSent, whileUnreachable } from '../store/pg-errors.ts';
import type { EffectLedger } from '../tools/effects.ts';
import { untilAnswered } from './run-lease.ts';

/** A run's reads and writes while the database is away: what they need of the executor's dependencies. */
interface OutageDeps {
  readonly config: Config;
  readonly logger: Logger;
}

/**
 * A read of the run's path, tried again while the database cannot be reached: with the run's signal, until the run
 * stops (its lease decides, as the README promises); without one (before the run starts), about 30 s.
 */
export function ridden<T>(deps: OutageDeps, runId: string, what: string, read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  return whileUnreachable(read, {
    ...(signal ? { signal, delaysMs: untilAnswered(deps.config) } : {}),
    onRetry: (err, attempt) => deps.logger.warn({ run_id: runId, err: describeFailure(err), attempt }, `${what} failed: the database cannot be reached; trying again`),
  });
}

/**
 * Records sent again while the database refuses connections, until the run is stopped: a record that never
 * reached the server cannot be written twice, and the call it decides waits for it (I8). A failure that may
 * have committed (the connection broke mid-write) is not sent again; the run then fails with it.
 */
export function resendUnsent(audit: AuditAppend, signal: AbortSignal, config: Config): AuditAppend {
  const append = (event: AuditInput) => whileUnreachable(() => audit(event), { retryIf: neverSent, signal, delaysMs: untilAnswered(config) });
  return Object.assign(append, { ...(audit.ordered ? { ordered: true } : {}), ...(audit.withChange ? { withChange: audit.withChange } : {}) });
}

/** The effect ledger (a read, and an insert that does nothing twice) tried again while the database is away, until the run stops. */
export function riddenLedger(deps: OutageDeps, runId: string, ledger: EffectLedger, signal: AbortSignal): EffectLedger {
  return {
    recall: (key) => ridden(deps, runId, 'reading the effect ledger', () => ledger.recall(key), signal),
    remember: (key, tool, result) => ridden(deps, runId, 'recording a tool\'s effect', () => ledger.remember(key, tool, result), signal),
  };
}
