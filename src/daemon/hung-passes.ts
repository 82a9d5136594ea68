import type { Logger } from '../log/logger.ts';

/**
 * Watches the daemon's passes (firing, reconcile) for one that makes no progress. A query or queue command
 * sent on a connection that went silent (a failover, a partition, frozen storage) waits for ever: no error,
 * no log line, no firing, and the runs this process took from the queue stay with it. A pass that has made
 * no progress for `warnAfterMs` is logged at error; past `exitAfterMs` the daemon is told to stop (`onHung`),
 * so its supervisor starts it again on fresh connections and the queue hands its runs to a replica.
 * Measured from the pass's last progress, not its start: a pass over a huge backlog (500,000 runs to
 * re-enqueue after Redis lost them) may rightly outlast the limit, and stopping it would only start it again.
 * A call of a pass that ends on a stall (work tried that changed nothing) is no progress either: the pass's
 * next call goes on with its clock, so a loop that keeps finding work it cannot do trips the limit too.
 */
export interface PassWatch {
  /**
   * `pass`, watched under `name`; it calls `progress` after each step it completed (a page, a committed batch),
   * and `progress.stalled` after a step that changed nothing.
   */
  around<T>(name: string, pass: (progress: Progress) => Promise<T>): () => Promise<T>;
  stop(): void;
}

/** `what` was done `n` more times (`'queued runs checked'`, 1000): the pass is alive, and the watch says how far it got. */
export interface Progress {
  (what: string, n?: number): void;
  /**
   * `what` was tried `n` more times and changed nothing (a firing batch whose due jobs did not move): no progress,
   * and a call that ends on it ends where it stood, so the pass's next call goes on with the same clock.
   */
  readonly stalled?: (what: string, n?: number) => void;
}

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
  /** Steps that changed nothing since the last progress. */
  readonly stalls: Map<string, number>;
}

export function watchPasses(opts: PassWatchOptions): PassWatch {
  const active = new Map<symbol, Watched>();
  let hung = false;
  const check = () => {
    // a monotonic clock: a wall clock stepped by NTP, or a suspended VM, is no hung pass
    const now = performance.now();
    for (const pass of active.values()) {
      const idle = now - pass.last;
      // a pass that reported its last steps as changing nothing is not waiting on a connection
      const repeating = pass.stalls.size > 0;
      if (!hung && idle >= opts.exitAfterMs) {
        hung = true;
        const { seconds, sofar, fields } = stalled(pass, now);
        const cause = repeating ? 'it repeats work that changes nothing' : 'a database or queue connection hangs';
        const why = `the ${pass.name} pass has made no progress for ${seconds} s (daemon.hung_pass_seconds; ${sofar}): ${cause}`;
        opts.logger.fatal(fields, `${why}; the daemon stops so that its supervisor starts it again on new connections`);
        opts.onHung(why);
      } else if (!pass.warned && idle >= opts.warnAfterMs) {
        pass.warned = true;
        const { seconds, sofar, fields } = stalled(pass, now);
        const cause = repeating ? 'it repeats work that changes nothing' : 'a database or queue connection may hang';
        opts.logger.error(fields, `the ${pass.name} pass has made no progress for ${seconds} s (${sofar}): ${cause}`);
      }
    }
  };
  const timer = setInterval(check, opts.checkEveryMs ?? Math.max(100, Math.min(5_000, opts.warnAfterMs / 4)));
  timer.unref();
  return {
    around: (name, pass) => {
      // the watch of a call that ended on a stall: the next call takes it over, clock and counts
      let carried: { key: symbol; watched: Watched } | null = null;
      return async () => {
        const started = performance.now();
        const { key, watched } = carried ?? { key: Symbol(name), watched: { name, started, last: started, warned: false, done: new Map(), stalls: new Map() } };
        carried = null;
        active.set(key, watched);
        let endsStalled = watched.stalls.size > 0;
        const progress: Progress = Object.assign((what: string, n = 1) => {
          watched.done.set(what, (watched.done.get(what) ?? 0) + n);
          watched.stalls.clear();
          endsStalled = false;
          watched.last = performance.now();
          // a pass that stalls again after moving on is worth a line again
          watched.warned = false;
        }, {
          stalled: (what: string, n = 1) => {
            watched.stalls.set(what, (watched.stalls.get(what) ?? 0) + n);
            endsStalled = true;
          },
        });
        let returned = false;
        try {
          const result = await pass(progress);
          returned = true;
          return result;
        } finally {
          // a call that failed is the loop's to report; one that returned stalled is still standing where it was
          if (returned && endsStalled) carried = { key, watched };
          else active.delete(key);
        }
      };
    },
    stop: () => clearInterval(timer),
  };
}

/** How long the pass has stood still and what it had done: what tells an operator a slow pass from a hung one. */
function stalled(pass: Watched, now: number): { seconds: number; sofar: string; fields: Record<string, unknown> } {
  const seconds = Math.round((now - pass.last) / 1000);
  const running = Math.round((now - pass.started) / 1000);
  const done = [...pass.done].map(([what, n]) => `${n} ${what}`).join(', ');
  const stalls = [...pass.stalls].map(([what, n]) => `${n} ${what}`).join(', ');
  const sofar = `running ${running} s, so far ${done || 'no progress'}${stalls ? `, then ${stalls}` : ''}`;
  const fields = { loop: pass.name, seconds, running_seconds: running, progress: Object.fromEntries(pass.done), ...(stalls ? { stalled: Object.fromEntries(pass.stalls) } : {}) };
  return { seconds, sofar, fields };
}
