import { delaysFor, describeFailure } from '../store/pg-errors.ts';
import { renewLease } from '../store/runs.ts';
import type { RunRow } from '../store/schema.ts';
import type { RunExecutorDeps } from './run-executor.ts';
import type { Config } from '../config/schema.ts';

/** How long a run's own reads and writes keep trying while the database is away: a lease (at least ~30 s); the lease decides before. */
export const untilAnswered = (config: Config): number[] => delaysFor(Math.max(30_000, config.daemon.lease_seconds * 1000));

/** Renewals stop being sent this often at most, so a cancel elsewhere reaches the run within seconds. */
const MAX_RENEW_INTERVAL_MS = 5_000;

/** Renewals failed (the database is away) for two thirds of the lease: the run stops before another replica may take it over. */
export class LeaseNotRenewed extends Error {
  constructor(readonly forMs: number, readonly last: unknown) {
    super('lease not renewed');
  }

  describe(): string {
    return `the run's lease could not be renewed for ${Math.round(this.forMs / 1000)}s: ${this.last ? describeFailure(this.last) : 'no answer'}`;
  }
}

/**
 * Renews the lease while the run works and aborts it when the lease is no
 * longer ours (cancelled, or taken over), or when renewals have failed for two
 * thirds of the lease: past that, another replica may soon take the run over.
 * Ours means this attempt's: this worker may have claimed the run again since.
 */
export function keepLease(deps: Pick<RunExecutorDeps, 'db' | 'config' | 'workerId' | 'logger'>, claimed: Pick<RunRow, 'id' | 'attempt'>, controller: AbortController): NodeJS.Timeout {
  const { id: runId, attempt } = claimed;
  const leaseMs = deps.config.daemon.lease_seconds * 1000;
  // a monotonic clock: a step of the host's wall clock (NTP) must neither abort every run nor hide failing renewals
  let renewedAt = performance.now();
  let lastError: unknown = null;
  return setInterval(() => {
    const since = performance.now() - renewedAt;
    if (since > (leaseMs * 2) / 3) controller.abort(new LeaseNotRenewed(since, lastError));
    if (controller.signal.aborted) return;
    renewLease(deps.db, { run_id: runId, owner: deps.workerId, attempt, lease_seconds: deps.config.daemon.lease_seconds }).then((ours) => {
      if (ours) renewedAt = performance.now();
      else controller.abort(new Error('lease lost'));
    }, (err: unknown) => {
      lastError = err;
      deps.logger.warn({ run_id: runId, err: describeFailure(err) }, 'lease renewal failed');
    });
  }, Math.max(1000, Math.min(MAX_RENEW_INTERVAL_MS, leaseMs / 3)));
}
