import { issueGrant } from '../../src/store/grants.ts';
import type { Executor } from '../../src/store/db.ts';
import type { JobRow } from '../../src/store/schema.ts';
import type { ConfigInput } from '../../src/config/schema.ts';

/** Short leases and ticks so a dead worker is noticed within seconds. */
export function crashTestConfig(prefix: string): ConfigInput {
  return {
    tools: { also_allow: ['test_slow'] },
    queue: { prefix },
    daemon: { lease_seconds: 2, tick_seconds: 0.2, reconcile_seconds: 0.5, stop_timeout_seconds: 2, concurrency: 2 },
  };
}

/** A human grant for the job, so its (external, hence write-classed) test tool runs unattended. */
export async function authorise(db: Executor, job: JobRow): Promise<void> {
  await issueGrant(db, {
    job_id: job.id, approval_id: 'apr_test', approver: 'alice', channel: 'cli', approved_at: new Date(), definition_hash: job.definition_hash, actor: 'alice',
  });
}
