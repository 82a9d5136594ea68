import type { Config } from '../../config/schema.ts';
import { JobInputError, RunRefusedError, changerOf, createJobFromCall, definitionFields, manualRun, mergedDefinition, parseDefinition, schedulerNow, updateJobFromCall, type JobChangeDeps } from '../../jobs/service.ts';
import { stepsEveryRunRefuses, type JobDefinition, type JobDefinitionInput } from '../../jobs/definition.ts';
import { GRANT_POLICY_RULES } from '../../jobs/grant-policy.ts';
import { getJob, listJobs, pauseJob, removeJob, resumeJob } from '../../store/jobs.ts';
import { getGrant } from '../../store/grants.ts';
import { runAuthorization } from '../../jobs/run-authorization.ts';
import { instantsDroppedByRemoval, instantsDueAtPause, instantsMissedWhilePaused } from '../../jobs/next-fire.ts';
import type { JobRow } from '../../store/schema.ts';
import { defineTool } from '../define.ts';
import { fail, ok, type ToolResult } from '../types.ts';

function summary(job: JobRow) {
  return {
    id: job.id, name: job.name, schedule: job.schedule, timezone: job.timezone, paused: job.paused,
    next_fire_at: job.next_fire_at?.toISOString() ?? null, tools: job.tools, payload_kind: job.payload.kind,
  };
}

const needId = (params: Record<string, unknown>): string | null => (typeof params.id === 'string' && params.id !== '' ? params.id : null);

/** The definition fields a create or update call gives: the named ones and `options`. */

/**
 * The definition a create or update call would store, checked before the gate
 * asks anyone: nobody should approve a job that cannot be stored.
 */
async function precheck(deps: JobChangeDeps, params: Record<string, unknown>): Promise<string | null> {
  try {
    let def: JobDefinition | null = null;
    if (params.action === 'create') def = parseDefinition(definitionFields(params), deps.checks, { now: await schedulerNow(deps) });
    if (params.action === 'update') {
      const id = needId(params);
      if (!id) return 'id: is required for action update';
      const job = await getJob(deps.db, id);
      if (!job) return `id: no job with id ${id}`;
      def = mergedDefinition(job, definitionFields(params), deps.checks, await schedulerNow(deps));
    }
    const refused = def ? await stepsEveryRunRefuses(def, deps.checks) : [];
    return refused.length > 0 ? refused.join('; ') : null;
  } catch (err) {
    if (err instanceof JobInputError) return err.message;
    throw err;
  }
}

/**
 * The cronjob tool (DANGEROUS). The gate never lets an unattended call reach
 * it; a job it creates or changes is authorised only by a human approval of this call.
 */
export function cronjobTool(config: Config, deps: JobChangeDeps) {
  return defineTool('cronjob', config, {
    precheck: (params) => precheck(deps, params),
    async execute(params, ctx, { approval }): Promise<ToolResult> {
      if (!ctx) return fail('denied', 'cronjob needs an execution context');
      const action = String(params.action);
      try {
        if (action === 'create') {
          const r = await createJobFromCall(deps, definitionFields(params) as JobDefinitionInput, ctx, approval);
          return ok({ job: summary(r.job), cron_authorized: r.verdict.issue, grant_rule: r.verdict.rule, grant: GRANT_POLICY_RULES[r.verdict.rule] });
        }
        if (action === 'list') return ok({ jobs: (await listJobs(deps.db)).map(summary) });
        const id = needId(params);
        if (!id) return fail('validation', `id: is required for action ${action}`);
        switch (action) {
          case 'show': {
            const job = await getJob(deps.db, id);
            return job ? ok({ job: summary(job), authorization: await runAuthorization(deps.db, job) }) : notFound(id);
          }
          case 'update': {
            const r = await updateJobFromCall(deps, id, definitionFields(params), ctx, approval);
            if (!r) return notFound(id);
            // the job's authorisation after the change: an update outside the definition keeps a grant it did not issue
            const auth = await runAuthorization(deps.db, r.job);
            const grant = auth.grant_id === null ? null : auth.grant_id === r.grant?.id ? r.grant : await getGrant(deps.db, auth.grant_id);
            const issued = r.verdict.issue && grant !== null && grant.approval_id === r.verdict.approval_id;
            return ok({ job: summary(r.job), cron_authorized: auth.cron_authorized, grant_rule: r.verdict.rule, ...(auth.cron_authorized && grant ? { granted_by: grant.approver, grant_issued: issued } : {}) });
          }
          case 'pause': {
            const r = await pauseJob(deps.db, id, { ...changerOf(ctx), note: typeof params.note === 'string' ? params.note : undefined }, instantsDueAtPause);
            return r ? ok({ job: summary(r.job), ...(r.changed ? {} : { unchanged: 'the job was already paused' }) }) : notFound(id);
          }
          case 'resume': {
            const r = await resumeJob(deps.db, id, changerOf(ctx), instantsMissedWhilePaused);
            return r ? ok({ job: summary(r.job), ...(r.changed ? {} : { unchanged: 'the job was not paused' }) }) : notFound(id);
          }
          case 'remove': {
            const job = await removeJob(deps.db, id, { ...changerOf(ctx), why: typeof params.note === 'string' ? params.note : 'removed by cronjob' }, instantsDroppedByRemoval);
            return job ? ok({ removed: id }) : notFound(id);
          }
          case 'run': {
            const run = await manualRun(deps, id, changerOf(ctx));
            return run ? ok({ run_id: run.id, job_id: id }) : notFound(id);
          }
          default:
            return fail('validation', `action: unknown action ${action}`);
        }
      } catch (err) {
        if (err instanceof JobInputError) return fail(err.kind, err.message);
        if (err instanceof RunRefusedError) return fail('business', `run: not queued, ${err.message}`);
        throw err;
      }
    },
  });
}

function notFound(id: string): ToolResult {
  return fail('business', `no job with id ${id}`);
}
