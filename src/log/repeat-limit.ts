import type { Logger } from 'pino';
import { DependencyUnavailableError } from '../util/dependency-error.ts';
import { pastQueryWrappers } from '../util/query-errors.ts';

/**
 * Logs a recurring warning at most once per `windowMs` for each message, with how many were held back:
 * a queue whose server is restarting reports every failed fetch, several a millisecond, and a log that
 * floods hides what happened and fills the disk.
 */
export function repeatLimitedWarn(
  logger: Logger, msg: string, opts: { windowMs?: number; now?: () => number; level?: 'warn' | 'error'; stack?: boolean } = {},
): (err: Error, context?: Readonly<Record<string, string>>) => void {
  const windowMs = opts.windowMs ?? 5_000;
  const now = opts.now ?? Date.now;
  const last = new Map<string, { at: number; held: number }>();
  return (outer, context = {}) => {
    // one failure reached through different statements (drizzle's wrapper message quotes each) is one failure
    const inner = pastQueryWrappers(outer);
    const err = inner instanceof Error ? inner : outer;
    const key = `${Object.values(context).join('\u0000')}\u0000${err.message}`;
    const t = now();
    const seen = last.get(key);
    if (seen && t - seen.at < windowMs) {
      seen.held++;
      return;
    }
    const held = seen?.held ?? 0;
    // bounded: a flood of ever-different messages must not grow this map without end
    if (last.size >= 100) last.clear();
    last.set(key, { at: t, held: 0 });
    // stack: false for an outage's messages (a refused connection), whose stack says nothing; at debug level it is kept.
    // A dependency's failure (the queue does not answer) names its cause in full: no stack either
    const code = (err as NodeJS.ErrnoException).code;
    const stackless = opts.stack === false || err instanceof DependencyUnavailableError;
    const what = stackless && !logger.isLevelEnabled('debug') ? { error: err.message, ...(code ? { code } : {}) } : { err };
    // where it surfaced (the first statement or step that met it), without the wrapper's parameters
    const during = outer === err ? {} : { during: outer.message.split('\n')[0]!.slice(0, 200) };
    logger[opts.level ?? 'warn']({ ...what, ...during, ...context, ...(held > 0 ? { repeated: held, window_ms: windowMs } : {}) }, msg);
  };
}

/** How often a loop that keeps failing says so: an outage fails every tick, and a stack trace a second buries the log. */
const LOOP_FAILURE_WINDOW_MS = 30_000;

/**
 * A daemon loop's failures, the same one logged at most once a window (with how many were held back), and one
 * line when a pass succeeds again, so the log shows when an outage ended and not only that it began.
 */
export function loopFailureLog(logger: Logger, loop: string, opts: { windowMs?: number; now?: () => number } = {}) {
  const now = opts.now ?? Date.now;
  const report = repeatLimitedWarn(logger, `${loop} pass failed`, { windowMs: opts.windowMs ?? LOOP_FAILURE_WINDOW_MS, now, level: 'error' });
  let failing: { since: number; count: number } | null = null;
  return {
    failed(err: unknown): void {
      failing ??= { since: now(), count: 0 };
      failing.count++;
      report(err instanceof Error ? err : new Error(String(err)), { loop });
    },
    succeeded(): void {
      if (!failing) return;
      logger.info({ loop, failures: failing.count, failing_ms: now() - failing.since }, `${loop} pass succeeded again`);
      failing = null;
    },
  };
}
