import type { Logger } from '../log/logger.ts';

/**
 * Watches the daemon's passes (firing, reconcile) for one that never returns. A query or queue command
 * sent on a connection that went silent (a failover, a partition, frozen storage) waits for ever: no error,
 * no log line, no firing, and the runs this process took from the queue stay with it. A pass that has not
 * returned for `warnAfterMs` is logged at error; past `exitAfterMs` the daemon is told to stop (`onHung`), so
 * its supervisor starts it again on fresh connections and the queue hands its runs to a replica.
 */
export interface PassWatch {
  /** `pass`, watched under `name`. */
  around<T>(name: string, pass: () => Promise<T>): () => Promise<T>;
  stop(): void;
}

export interface PassWatchOptions {
  readonly logger: Logger;
  readonly warnAfterMs: number;
  readonly exitAfterMs: number;
  readonly onHung: (why: string) => void;
  readonly checkEveryMs?: number;
}

export function watchPasses(opts: PassWatchOptions): PassWatch {
  const active = new Map<symbol, { name: string; since: number; warned: boolean }>();
  let hung = false;
  const check = () => {
    // a monotonic clock: a wall clock stepped by NTP, or a suspended VM, is no hung pass
    const now = performance.now();
    for (const pass of active.values()) {
      const seconds = Math.round((now - pass.since) / 1000);
      if (!hung && now - pass.since >= opts.exitAfterMs) {
        hung = true;
        const why = `the ${pass.name} pass has not returned for ${seconds} s (daemon.hung_pass_seconds): a database or queue connection hangs`;
        opts.logger.fatal({ pass: pass.name, seconds }, `${why}; the daemon stops so that its supervisor starts it again on new connections`);
        opts.onHung(why);
      } else if (!pass.warned && now - pass.since >= opts.warnAfterMs) {
        pass.warned = true;
        opts.logger.error({ pass: pass.name, seconds }, `the ${pass.name} pass has not returned for ${seconds} s: a database or queue connection may hang`);
      }
    }
  };
  const timer = setInterval(check, opts.checkEveryMs ?? Math.max(100, Math.min(5_000, opts.warnAfterMs / 4)));
  timer.unref();
  return {
    around: (name, pass) => async () => {
      const key = Symbol(name);
      active.set(key, { name, since: performance.now(), warned: false });
      try {
        return await pass();
      } finally {
        active.delete(key);
      }
    },
    stop: () => clearInterval(timer),
  };
}
