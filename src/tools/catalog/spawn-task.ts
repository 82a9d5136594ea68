import type { Config } from '../../config/schema.ts';
import { createChildJob } from '../../jobs/child-jobs.ts';
import { JobInputError, type JobServiceDeps } from '../../jobs/service.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';

/**
 * Starts a sub-agent in the background: a child job and its run on the
 * daemon's queue. Its runs are nested executions of this one (I5): unattended,
 * cron_authorized only through the parent job's live grant, at most these tools.
 */
export function spawnTaskTool(config: Config, deps: JobServiceDeps) {
  return defineTool('spawn_task', config, {
    async execute(params, ctx) {
      if (!ctx) return fail('denied', 'spawn_task needs an execution context');
      const prompt = String(params.prompt);
      try {
        const { job, run } = await createChildJob(deps, {
          origin: 'spawn_task', name: `spawn: ${prompt.slice(0, 60)}`, payload: { kind: 'agent', prompt },
          tools: Array.isArray(params.tools) ? params.tools.map(String) : [],
        }, ctx);
        return ok({ job_id: job.id, run_id: run.id, tools: job.tools, parent_job_id: job.parent_job_id });
      } catch (err) {
        if (err instanceof JobInputError) return fail(err.kind, `spawn_task: ${err.message}`);
        throw err;
      }
    },
  });
}
