import type { Executor } from '../store/db.ts';
import { getRun } from '../store/runs.ts';
import { backendWords, otherQueues } from '../queue/queue-tag.ts';
import { warn } from './output.ts';

const TRIES = 5;
const GAP_MS = 300;

/** The queue this command handed its run to (queue-handoff.ts notes it), when the caller names none. */
let handedTo: string | null = null;

/** Noted by the queue hand-off: which queue (queue-tag.ts) the command's run went to. */
export function noteQueueOfCommand(tag: string | null): void {
  handedTo = tag;
}

/**
 * Whether a daemon serving this schema is there to take a run just queued. One look at pg_stat_activity is not
 * enough: a daemon's pool may hold no connection at that moment (one closed after an error, or idle). So it looks
 * again for a moment, and a run no longer queued was taken: a daemon is there whatever the connections say.
 * Daemons that all consume another queue than `queue` (their names say so; an older release's says nothing) are
 * there, but take the run only through a reconciler: said here (replicas.queue_mismatch), and counted as there.
 */
export async function daemonSeen(db: Executor, runId: string, others: (db: Executor, mine: string) => Promise<string[]>, queue: string | null = handedTo): Promise<boolean> {
  for (let i = 0; i < TRIES; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, GAP_MS));
    const names = await others(db, '').catch(() => ['?']);
    if (names.length > 0) {
      const apart = queue ? otherQueues(names, queue) : [];
      if (apart.length === names.length && queue) warn(queueApartWarning(runId, apart, queue));
      return true;
    }
    const run = await getRun(db, runId).catch(() => null);
    if (run && run.state !== 'queued') return true;
  }
  return false;
}

function queueApartWarning(runId: string, apart: readonly { daemon: string; tag: string }[], mine: string): string {
  const kinds = new Set(apart.map((a) => a.tag.split('.')[0]));
  const theirs = kinds.size === 1 && !kinds.has(mine.split('.')[0]) ? `another queue backend, ${backendWords(apart[0]!.tag)}` : 'another queue (queue.redis_url or queue.prefix differ)';
  return `run ${runId} went to ${backendWords(mine)}, but the daemons connected (${apart.map((a) => a.daemon).join(', ')}) consume ${theirs}: `
    + 'none takes it from this queue. A daemon\'s reconciler hands it to its own queue within daemon.reconcile_seconds; do not run the job again. '
    + 'Give this config the daemons\' queue settings (queue.redis_url, queue.prefix)';
}
