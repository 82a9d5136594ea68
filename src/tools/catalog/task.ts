import type { Config } from '../../config/schema.ts';
import { cancelChildJob, listChildJobs, ownChildJob, summarise } from '../../jobs/child-jobs.ts';
import { JobInputError, type JobServiceDeps } from '../../jobs/service.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';
import { stoppedByAbort } from './abort.ts';
import { createUnlessAborted } from './child-job-abort.ts';

/** Background agent tasks on the daemon's queue: create, list, show (with output), cancel. */
export function taskTool(config: Config, deps: JobServiceDeps) {
  return defineTool('task', config, {
    async execute(params, ctx, { signal }) {
      if (!ctx) return fail('denied', 'task needs an execution context');
      const action = String(params.action);
      if (action === 'create') {
        if (typeof params.prompt !== 'string' || params.prompt.trim() === '') return fail('validation', 'prompt: is required for action create');
        const title = typeof params.title === 'string' && params.title.trim() !== '' ? params.title.trim() : params.prompt.slice(0, 60);
        try {
          const made = await createUnlessAborted(deps, { origin: 'task', name: title, payload: { kind: 'agent', prompt: params.prompt } }, ctx, signal);
          if (!made) return stoppedByAbort('task', signal, 'no task was created');
          return ok({ id: made.job.id, run_id: made.run.id, title, state: made.run.state });
        } catch (err) {
          if (err instanceof JobInputError) return fail(err.kind, `task: ${err.message}`);
          throw err;
        }
      }
      if (action === 'list') return ok({ tasks: await listChildJobs(deps, 'task', ctx) });
      if (typeof params.id !== 'string' || params.id === '') return fail('validation', `id: is required for action ${action}`);
      const job = await ownChildJob(deps, 'task', params.id, ctx);
      if (!job) return fail('business', `task: no task ${params.id} made here (a task belongs to the job run or session that created it)`);
      if (action === 'show') return ok({ task: await summarise(deps, job, true) });
      if (job.removed_at) return fail('business', `task: ${job.id} is already cancelled`);
      return ok({ id: job.id, cancelled_runs: await cancelChildJob(deps, job, ctx) });
    },
  });
}
