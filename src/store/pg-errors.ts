import { pastQueryWrappers } from '../util/query-errors.ts';

/** PostgreSQL errors the store turns into outcomes, looked for along drizzle's `cause` chain. */

/** A unique violation of this very constraint: another writer got there first. */
export function violatesUnique(err: unknown, constraint: string): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const found = e as { code?: string; constraint?: string };
    if (found.code === '23505' && found.constraint === constraint) return true;
  }
  return false;
}

/** A check violation of this very constraint. */
export function violatesCheck(err: unknown, constraint: string): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const found = e as { code?: string; constraint?: string };
    if (found.code === '23514' && found.constraint === constraint) return true;
  }
  return false;
}

/** Server going away or refusing connections for now (admin shutdown, crash, starting up), and class 08 but protocol violations. */
const CONNECTION_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
/** The socket's own failures: the server is not there, or the connection broke. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** A write that committed, whose answer was lost with the connection: it happened, and must not be sent again. */
export class CommittedAnswerLost extends Error {
  override readonly name = 'CommittedAnswerLost';
}

/**
 * Whether the database could not be reached (a restart, a dropped connection), as opposed to a
 * statement it refused: the same write may succeed once the server is back.
 */
export function lostConnection(err: unknown): boolean {
  if (err instanceof CommittedAnswerLost) return false;
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || SOCKET_CODES.has(code))) return true;
    const message = e instanceof Error ? e.message : '';
    if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(message)) return true;
  }
  return false;
}

/** Failures to connect at all (refused, no route, name lookup, server starting): nothing reached the server. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', '57P03']);

/** Whether the statement never reached the server, so sending it again cannot make it happen twice. */
export function neverSent(err: unknown): boolean {
  if (err instanceof CommittedAnswerLost) return false;
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return true;
    if (e instanceof Error && /timeout exceeded when trying to connect/.test(e.message)) return true;
  }
  return false;
}

/** drizzle's wrapper message: the statement's text and parameters, never for a run's error or an audit reason. */
const FAILED_QUERY = /Failed query:[\s\S]*/;

/** Text with any drizzle query dump (SQL and its parameters) taken out. */
export function withoutSql(text: string): string {
  return text.replace(FAILED_QUERY, 'a database statement failed');
}

/**
 * What went wrong, for a run's error and its audit record: the innermost cause with its code (`connect
 * ECONNREFUSED 127.0.0.1:5432`), not drizzle's wrapper, whose message is the statement and its parameters.
 * Callers redact it as any other error.
 */
export function describeFailure(err: unknown): string {
  const inner = pastQueryWrappers(err);
  const code = (inner as { code?: unknown }).code;
  // an AggregateError (every address of a host refused) has no message of its own
  const first = inner instanceof AggregateError ? inner.errors[0] : undefined;
  const raw = inner instanceof Error ? (inner.message || (first instanceof Error ? first.message : '')) : String(inner);
  const message = withoutSql(raw).trim() || (typeof code === 'string' ? code : 'unknown error');
  const detail = typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  if (lostConnection(err)) return `the database was unreachable (${detail})`;
  // a SQLSTATE: the server answered and refused the statement
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return `the database refused a statement (${detail})`;
  return `internal error: ${detail}`;
}

/** The default wait between tries: about 30 s in all. */
export const RIDE_OUT_MS: readonly number[] = [500, 1_000, 2_000, 4_000, 8_000, 15_000];

export interface RetryOptions {
  readonly delaysMs?: readonly number[];
  readonly onRetry?: (err: unknown, attempt: number) => void;
  /** Which failures are tried again (lostConnection by default). */
  readonly retryIf?: (err: unknown) => boolean;
  /** Stops waiting once aborted: the last failure is thrown. */
  readonly signal?: AbortSignal;
}

/**
 * Runs a write again while the database cannot be reached, waiting longer each time (about 30 s in all).
 * A write whose commit went through but whose answer was lost runs again too: callers make it conditional.
 */
export async function whileUnreachable<T>(write: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const delays = opts.delaysMs ?? RIDE_OUT_MS;
  const retryIf = opts.retryIf ?? lostConnection;
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= delays.length || !retryIf(err) || opts.signal?.aborted) throw err;
      opts.onRetry?.(err, attempt + 1);
      await pause(delays[attempt]!, opts.signal);
    }
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Waits between tries until about `totalMs` have gone by, `stepMs` at most between two: for a writer that must outlast an outage. */
export function delaysFor(totalMs: number, stepMs = 5_000): number[] {
  const out: number[] = [];
  for (let sum = 0, d = 500; sum < totalMs; sum += d, d = Math.min(stepMs, d * 2)) out.push(d);
  return out;
}
