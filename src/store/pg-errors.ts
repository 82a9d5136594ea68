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

/**
 * Runs a write again while the database cannot be reached, waiting longer each time (about 30 s in all).
 * A write whose commit went through but whose answer was lost runs again too: callers make it conditional.
 */
export async function whileUnreachable<T>(write: () => Promise<T>, opts: { delaysMs?: readonly number[]; onRetry?: (err: unknown, attempt: number) => void } = {}): Promise<T> {
  const delays = opts.delaysMs ?? [500, 1_000, 2_000, 4_000, 8_000, 15_000];
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= delays.length || !lostConnection(err)) throw err;
      opts.onRetry?.(err, attempt + 1);
      await new Promise((r) => setTimeout(r, delays[attempt]));
    }
  }
}
