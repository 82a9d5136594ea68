/** `work`, or a rejection once `ms` have passed: for answers a caller cannot wait on (a probe, a scrape). */
export function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * `work`'s value, or `timedOut` once `ms` have passed; the timer is cleared either way. Unlike within's, it is not
 * unref'd: a command or a stop waiting on it goes on when the time is up, whatever else holds the process.
 */
export async function valueWithin<T, U>(ms: number, work: Promise<T>, timedOut: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<U>((r) => { timer = setTimeout(() => r(timedOut), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}
