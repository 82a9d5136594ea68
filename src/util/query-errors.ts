/**
 * The error under drizzle's wrappers, whose message is only the failed statement and its parameters ("Failed
 * query: …"): the driver's own error says what went wrong. Other wrappers are kept, their message says more
 * than what they wrap.
 */
export function pastQueryWrappers(err: unknown): unknown {
  let inner = err;
  for (let depth = 0; inner instanceof Error && inner.message.startsWith('Failed query:') && inner.cause && depth < 8; depth++) inner = inner.cause;
  return inner;
}
