/** Why a signal fired, for a person: the executor's `timeout`, the daemon's `shutdown`, a lost lease. */
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : reason === undefined ? 'cancelled' : String(reason);
}
