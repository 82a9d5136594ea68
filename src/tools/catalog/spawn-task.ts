import type { Config } from '../../config/schema.ts';
import { JobInputError, type JobServiceDeps } from '../../jobs/service.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';
import { stoppedByAbort } from './abort.ts';
import { createUnlessAborted } from './child-job-abort.ts';

/**
 * Starts a sub-agent in the background: a child job and its run on the
 * daemon's queue. Its runs are nested executions of this one (I5): unattended,
 * cron_authorized only through the parent job's live grant, at most these tools.
 */
export function spawnTaskTool(config: Config, deps: JobServiceDeps) {
  return defineTool('spawn_task', config, {
    async execute(params, ctx, { signal }) {
      if (!ctx) return fail('denied', 'spawn_task needs an execution context');
      const prompt = String(params.prompt);
      try {
        const made = await createUnlessAborted(deps, {
          origin: 'spawn_task', name: `spawn: ${prompt.slice(0, 60)}`, payload: { kind: 'agent', prompt },
          tools: Array.isArray(params.tools) ? params.tools.map(String) : [],
        }, ctx, signal);
        if (!made) return stoppedByAbort('spawn_task', signal, 'no sub-run was started');
        const { job, run } = made;
        return ok({ job_id: job.id, run_id: run.id, tools: job.tools, parent_job_id: job.parent_job_id });
      } catch (err) {
        if (err instanceof JobInputError) return fail(err.kind, `spawn_task: ${err.message}`);
        throw err;
      }
    },
  });
}
