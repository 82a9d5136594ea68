import { cancelChildJob, createChildJob, type ChildJobInput } from '../../jobs/child-jobs.ts';
import type { JobServiceDeps } from '../../jobs/service.ts';
import type { ToolExecutionContext } from '../context.ts';

/**
 * createChildJob under a call's signal; null when the signal fired. The creation is one transaction that
 * cannot be interrupted, so a job made while the call was being cancelled is removed again (its queued run
 * with it): a run recorded as ended must not leave a child job behind that runs after it.
 */
export async function createUnlessAborted(
  deps: JobServiceDeps, input: ChildJobInput, ctx: ToolExecutionContext, signal: AbortSignal,
): Promise<Awaited<ReturnType<typeof createChildJob>> | null> {
  if (signal.aborted) return null;
  const made = await createChildJob(deps, input, ctx);
  if (!signal.aborted) return made;
  await cancelChildJob(deps, made.job, ctx);
  return null;
}
