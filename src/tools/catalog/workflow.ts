import type { Config } from '../../config/schema.ts';
import { listChildJobs, ownChildJob, summarise } from '../../jobs/child-jobs.ts';
import { JobInputError, changerOf, manualRun, RunRefusedError, type JobServiceDeps } from '../../jobs/service.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';
import { stoppedByAbort } from './abort.ts';
import { createUnlessAborted } from './child-job-abort.ts';

/**
 * Ordered step lists run by the daemon: create (and run once), run again,
 * list, show. Every step goes through the gate in the workflow's run.
 */
export function workflowTool(config: Config, deps: JobServiceDeps) {
  return defineTool('workflow', config, {
    async execute(params, ctx, { signal }) {
      if (!ctx) return fail('denied', 'workflow needs an execution context');
      const action = String(params.action);
      if (action === 'create') {
        if (typeof params.name !== 'string' || params.name.trim() === '') return fail('validation', 'name: is required for action create');
        if (!Array.isArray(params.steps) || params.steps.length === 0) return fail('validation', 'steps: a non-empty list of {tool, args} is required for action create');
        try {
          const made = await createUnlessAborted(deps, { origin: 'workflow', name: params.name, payload: { kind: 'steps', steps: params.steps as never } }, ctx, signal);
          if (!made) return stoppedByAbort('workflow', signal, 'no workflow was created');
          return ok({ id: made.job.id, run_id: made.run.id, steps: params.steps.length });
        } catch (err) {
          if (err instanceof JobInputError) return fail(err.kind, `workflow: ${err.message}`);
          throw err;
        }
      }
      if (action === 'list') return ok({ workflows: await listChildJobs(deps, 'workflow', ctx) });
      if (typeof params.id !== 'string' || params.id === '') return fail('validation', `id: is required for action ${action}`);
      const job = await ownChildJob(deps, 'workflow', params.id, ctx);
      if (!job) return fail('business', `workflow: no workflow ${params.id} made here (a workflow belongs to the job run or session that created it)`);
      if (action === 'show') return ok({ workflow: { ...(await summarise(deps, job, true)), steps: job.payload.kind === 'steps' ? job.payload.steps : [] } });
      if (signal.aborted) return stoppedByAbort('workflow', signal, `${job.id} was not run again`);
      try {
        const run = await manualRun(deps, job.id, changerOf(ctx));
        return run ? ok({ id: job.id, run_id: run.id }) : fail('business', `workflow: ${job.id} was removed`);
      } catch (err) {
        if (err instanceof RunRefusedError) return fail('business', `workflow: ${job.id} not run again: ${err.message}`);
        throw err;
      }
    },
  });
}
