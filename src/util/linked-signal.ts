/** A signal that follows its parents and a deadline, and lets go of both once the work it guards is over. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Whether the deadline, not a parent, aborted it. */
  timedOut(): boolean;
  /** Unhooks it from its parents and stops the deadline; call it when the work has ended, however it ended. */
  dispose(): void;
}

/**
 * Aborts when any parent does (with its reason) or after `timeoutMs` (with a TimeoutError, as AbortSignal.timeout).
 * Not AbortSignal.any: on Node 20 a long-lived parent (the daemon's shutdown signal) keeps a link to every signal
 * ever made from it, so each delivery or fetch made under it stayed in memory for the life of the process.
 */
export function linkedSignal(parents: readonly (AbortSignal | undefined)[], timeoutMs?: number): LinkedSignal {
  const controller = new AbortController();
  let expired = false;
  const hooked: { parent: AbortSignal; onAbort: () => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const dispose = () => {
    for (const { parent, onAbort } of hooked.splice(0)) parent.removeEventListener('abort', onAbort);
    if (timer) clearTimeout(timer);
  };
  const abort = (reason: unknown) => {
    dispose();
    controller.abort(reason);
  };
  for (const parent of parents) {
    if (!parent) continue;
    if (parent.aborted) {
      abort(parent.reason);
      break;
    }
    const onAbort = () => abort(parent.reason);
    parent.addEventListener('abort', onAbort, { once: true });
    hooked.push({ parent, onAbort });
  }
  if (timeoutMs !== undefined && !controller.signal.aborted) {
    timer = setTimeout(() => {
      expired = true;
      abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timeoutMs);
    // as AbortSignal.timeout: a pending deadline alone does not keep the process alive
    timer.unref();
  }
  return { signal: controller.signal, timedOut: () => expired, dispose };
}
