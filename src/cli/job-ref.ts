import { getJob, jobsNamed } from '../store/jobs.ts';
import type { Executor } from '../store/db.ts';
import type { JobRow } from '../store/schema.ts';
import { CliError, EXIT } from './errors.ts';

/**
 * The job an admin means by REF: its id, else its name. A name is taken only
 * when it is unambiguous (one live job of that name, or, when removed jobs
 * count, one job at all); otherwise the ids to choose from are named.
 */
export async function jobByRef(exec: Executor, ref: string, opts: { includeRemoved?: boolean } = {}): Promise<JobRow> {
  const byId = await getJob(exec, ref, opts);
  if (byId) return byId;
  const named = await jobsNamed(exec, ref);
  const live = named.filter((j) => !j.removed_at);
  const candidates = live.length > 0 || !opts.includeRemoved ? live : named;
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) {
    const removedNote = !opts.includeRemoved && named.length > 0 ? ` (job ${named.map((j) => j.id).join(', ')} of that name was removed)` : '';
    throw new CliError(`no job with id or name ${JSON.stringify(ref)}${removedNote}`, EXIT.failure);
  }
  const list = candidates.map((j) => `${j.id} (created ${j.created_at.toISOString()}${j.removed_at ? ', removed' : ''})`).join(', ');
  throw new CliError(`${candidates.length} jobs are named ${JSON.stringify(ref)}: ${list}; give the id`, EXIT.failure);
}
