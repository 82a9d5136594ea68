/**
 * A service the daemon depends on (the database, the queue) did not answer or refused. An operational
 * fact the message names in full (which setting, what the service said), so the log carries no stack for it.
 */
export class DependencyUnavailableError extends Error {
  override readonly name = 'DependencyUnavailableError';
  readonly code = 'EDEPENDENCY';
}

/** A start stopped by a signal while it waited on a dependency: a stop asked for, not a failure. */
export class StoppedWhileStartingError extends Error {
  override readonly name = 'StoppedWhileStartingError';
}
