/** Ctrl-C, SIGTERM, and SIGHUP: a closed terminal or a dropped ssh session. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The shell's code for a command ended by SIGHUP (129), SIGINT (130) or SIGTERM (143). */
export const signalExitCode = (sig: NodeJS.Signals): number => 128 + (sig === 'SIGHUP' ? 1 : sig === 'SIGINT' ? 2 : 15);

export interface StopSignals {
  /** Aborted by the first stop signal; the caller may abort it for its own reasons too (a timeout). */
  readonly controller: AbortController;
  /** The signal that stopped the work, if one did. */
  interrupted(): NodeJS.Signals | null;
  release(): void;
}

/**
 * Until `release`, the first stop signal aborts `controller`, so the work winds itself up (a waiting request is
 * withdrawn and its refusal recorded, a transcript kept) rather than the process dying under it; a second one
 * exits at once. `say` is what the person is told at the first.
 */
export function onStopSignals(say?: (sig: NodeJS.Signals) => string): StopSignals {
  const controller = new AbortController();
  let interrupted: NodeJS.Signals | null = null;
  const stop = (sig: NodeJS.Signals) => {
    if (interrupted) process.exit(signalExitCode(sig));
    interrupted = sig;
    // a hung-up terminal fails the write with EIO: that must not end the process before the work is wound up
    process.stderr.on('error', () => {});
    if (say) process.stderr.write(say(sig));
    controller.abort(new Error(`interrupted by ${sig}`));
  };
  for (const sig of STOP_SIGNALS) process.on(sig, stop);
  return { controller, interrupted: () => interrupted, release: () => { for (const sig of STOP_SIGNALS) process.off(sig, stop); } };
}
