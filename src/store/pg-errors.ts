/** PostgreSQL errors the store turns into outcomes, looked for along drizzle's `cause` chain. */

/** A unique violation of this very constraint: another writer got there first. */
export function violatesUnique(err: unknown, constraint: string): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const found = e as { code?: string; constraint?: string };
    if (found.code === '23505' && found.constraint === constraint) return true;
  }
  return false;
}
