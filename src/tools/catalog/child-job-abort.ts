import { cancelChildJob, createChildJob, type ChildJobInput } from '../../jobs/child-jobs.ts';
import type { JobServiceDeps } from '../../jobs/service.ts';
import type { ToolExecutionContext } from '../context.ts';

/**
 * createChildJob under a call's signal; null when the signal fired. The creation is one transaction that
 * cannot be interrupted, so a job made while the call was being cancelled is removed again (its queued run
 * with it), before its run reaches the queue: a run recorded as ended must not leave a child job behind that runs after it.
 */
export async function createUnlessAborted(
  deps: JobServiceDeps, input: ChildJobInput, ctx: ToolExecutionContext, signal: AbortSignal,
): Promise<Awaited<ReturnType<typeof createChildJob>> | null> {
  if (signal.aborted) return null;
  // handed to the queue only once the call is known not to be cancelled: a worker must not start it meanwhile
  const { enqueue, ...unqueued } = deps;
  const made = await createChildJob(unqueued, input, ctx);
  if (!signal.aborted) {
    await enqueue?.(made.run.id);
    return made;
  }
  await cancelChildJob(deps, made.job, ctx);
  return null;
}
