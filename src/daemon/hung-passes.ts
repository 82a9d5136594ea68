import type { Logger } from '../log/logger.ts';

/**
 * Watches the daemon's passes (firing, reconcile) for one that makes no progress. A query or queue command
 * sent on a connection that went silent (a failover, a partition, frozen storage) waits for ever: no error,
 * no log line, no firing, and the runs this process took from the queue stay with it. A pass that has made
 * no progress for `warnAfterMs` is logged at error; past `exitAfterMs` the daemon is told to stop (`onHung`),
 * so its supervisor starts it again on fresh connections and the queue hands its runs to a replica.
 * Measured from the pass's last progress, not its start: a pass over a huge backlog (500,000 runs to
 * re-enqueue after Redis lost them) may rightly outlast the limit, and stopping it would only start it again.
 */
export interface PassWatch {
  /** `pass`, watched under `name`; it calls `progress` after each step it completed (a page, a committed batch). */
  around<T>(name: string, pass: (progress: Progress) => Promise<T>): () => Promise<T>;
  stop(): void;
}

/** `what` was done `n` more times (`'queued runs checked'`, 1000): the pass is alive, and the watch says how far it got. */
export type Progress = (what: string, n?: number) => void;

export interface PassWatchOptions {
  readonly logger: Logger;
  readonly warnAfterMs: number;
  readonly exitAfterMs: number;
  readonly onHung: (why: string) => void;
  readonly checkEveryMs?: number;
}

interface Watched {
  readonly name: string;
  readonly started: number;
  last: number;
  warned: boolean;
  readonly done: Map<string, number>;
}

export function watchPasses(opts: PassWatchOptions): PassWatch {
  const active = new Map<symbol, Watched>();
  let hung = false;
  const check = () => {
    // a monotonic clock: a wall clock stepped by NTP, or a suspended VM, is no hung pass
    const now = performance.now();
    for (const pass of active.values()) {
      const idle = now - pass.last;
      if (!hung && idle >= opts.exitAfterMs) {
        hung = true;
        const { seconds, sofar, fields } = stalled(pass, now);
        const why = `the ${pass.name} pass has made no progress for ${seconds} s (daemon.hung_pass_seconds; ${sofar}): a database or queue connection hangs`;
        opts.logger.fatal(fields, `${why}; the daemon stops so that its supervisor starts it again on new connections`);
        opts.onHung(why);
      } else if (!pass.warned && idle >= opts.warnAfterMs) {
        pass.warned = true;
        const { seconds, sofar, fields } = stalled(pass, now);
        opts.logger.error(fields, `the ${pass.name} pass has made no progress for ${seconds} s (${sofar}): a database or queue connection may hang`);
      }
    }
  };
  const timer = setInterval(check, opts.checkEveryMs ?? Math.max(100, Math.min(5_000, opts.warnAfterMs / 4)));
  timer.unref();
  return {
    around: (name, pass) => async () => {
      const key = Symbol(name);
      const started = performance.now();
      const watched: Watched = { name, started, last: started, warned: false, done: new Map() };
      active.set(key, watched);
      const progress: Progress = (what, n = 1) => {
        watched.done.set(what, (watched.done.get(what) ?? 0) + n);
        watched.last = performance.now();
        // a pass that stalls again after moving on is worth a line again
        watched.warned = false;
      };
      try {
        return await pass(progress);
      } finally {
        active.delete(key);
      }
    },
    stop: () => clearInterval(timer),
  };
}

/** How long the pass has stood still and what it had done: what tells an operator a slow pass from a hung one. */
function stalled(pass: Watched, now: number): { seconds: number; sofar: string; fields: Record<string, unknown> } {
  const seconds = Math.round((now - pass.last) / 1000);
  const running = Math.round((now - pass.started) / 1000);
  const done = [...pass.done].map(([what, n]) => `${n} ${what}`).join(', ');
  const sofar = `running ${running} s, so far ${done || 'no progress'}`;
  return { seconds, sofar, fields: { pass: pass.name, seconds, running_seconds: running, progress: Object.fromEntries(pass.done) } };
}
