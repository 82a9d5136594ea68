import type { Executor } from '../store/db.ts';
import { getRun } from '../store/runs.ts';

const TRIES = 5;
const GAP_MS = 300;

/**
 * Whether a daemon serving this schema is there to take a run just queued. One look at pg_stat_activity is not
 * enough: a daemon's pool may hold no connection at that moment (one closed after an error, or idle). So it looks
 * again for a moment, and a run no longer queued was taken: a daemon is there whatever the connections say.
 */
export async function daemonSeen(db: Executor, runId: string, others: (db: Executor, mine: string) => Promise<string[]>): Promise<boolean> {
  for (let i = 0; i < TRIES; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, GAP_MS));
    if ((await others(db, '').catch(() => ['?'])).length > 0) return true;
    const run = await getRun(db, runId).catch(() => null);
    if (run && run.state !== 'queued') return true;
  }
  return false;
}
