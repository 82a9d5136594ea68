import type { Logger } from 'pino';

/**
 * Logs a recurring warning at most once per `windowMs` for each message, with how many were held back:
 * a queue whose server is restarting reports every failed fetch, several a millisecond, and a log that
 * floods hides what happened and fills the disk.
 */
export function repeatLimitedWarn(
  logger: Logger, msg: string, opts: { windowMs?: number; now?: () => number } = {},
): (err: Error, context?: Readonly<Record<string, string>>) => void {
  const windowMs = opts.windowMs ?? 5_000;
  const now = opts.now ?? Date.now;
  const last = new Map<string, { at: number; held: number }>();
  return (err, context = {}) => {
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
    logger.warn({ err, ...context, ...(held > 0 ? { repeated: held, window_ms: windowMs } : {}) }, msg);
  };
}
