import { randomUUID } from 'node:crypto';
import type { JobRow } from '../store/schema.ts';
import { buildContext, type ToolExecutionContext } from '../tools/context.ts';

export interface RunIds {
  readonly execution_id: string;
  readonly trace_id: string;
}

/**
 * A fresh execution per attempt; the trace is the run, so every attempt of a
 * run derives the same idempotency keys and a retry replays recorded effects.
 */
export function newRunIds(runId: string): RunIds {
  return { execution_id: randomUUID(), trace_id: runId };
}

/**
 * The unattended context of one run (SPEC §7): fresh ids, session `cron:<job>`,
 * cron_authorized only from the grant check, approval_source never "human".
 */
export function unattendedRunContext(
  job: Pick<JobRow, 'id' | 'owner' | 'tools'> & Partial<Pick<JobRow, 'parent_execution_id'>>, cronAuthorized: boolean, attempt: number, ids: RunIds,
): ToolExecutionContext {
  return buildContext({
    ...ids,
    session_key: `cron:${job.id}`,
    memory_scope: job.owner,
    user_id: job.owner,
    agent_id: 'cron',
    attempt_index: Math.max(0, attempt - 1),
    // a later attempt replays: side effects recorded by earlier attempts are not repeated
    is_replay: attempt > 1,
    channel: 'cron',
    unattended: true,
    cron_authorized: cronAuthorized,
    approval_source: 'auto',
    allowed_tools: job.tools ?? [],
    // a child job's runs are nested executions of the run that created it (I5)
    parent_execution_id: job.parent_execution_id ?? null,
  });
}
