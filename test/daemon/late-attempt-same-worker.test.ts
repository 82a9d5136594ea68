import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { defaultConfig } from '../../src/config/schema.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { getRun, retryRun } from '../../src/store/runs.ts';
import type { RunRow } from '../../src/store/schema.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ToolResult, Tool } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const WORKER = 'host-a:4242:1';

/**
 * A step during which attempt 1 loses its run: its lease runs out (a stalled process, a database away), the
 * reconciler sends the run back, and the same worker id claims it again as attempt 2. The step then ends
 * attempt 1 with `result`, late.
 */
async function attemptOneEndsLate(result: ToolResult): Promise<{ ended: Awaited<ReturnType<typeof executeRun>>; second: RunRow; now: RunRow }> {
  const db = database().db;
  const config = defaultConfig({ tools: { also_allow: ['taken_over'] } });
  let runId = '';
  let second: RunRow | null = null;
  const tool = {
    name: 'taken_over', description: 'x', parameters: { type: 'object' }, timeoutSeconds: 30, maxRetries: 0, streamCapable: false,
    capabilities: [], riskLevel: 'read_only', isReady: () => true, readinessDetail: () => [true, 'ready'],
    async execute() {
      await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${runId}`);
      // what the reconciler does with an expired lease (its own store call), then the same worker's next claim
      await retryRun(db, { run_id: runId, owner: WORKER, attempt: 1, leaseExpired: true, error: 'lease expired', backoff_ms: 0 });
      second = await claimRun(db, { run_id: runId, owner: WORKER, lease_seconds: 300 });
      return result;
    },
  } as unknown as Tool;
  const job = await createJob(db, {
    name: 'taken-over', owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', overlap_policy: 'allow',
    payload: { kind: 'steps', steps: [{ tool: 'taken_over', args: {} }] }, tools: [], paused: false, max_retries: 3,
  } as never);
  runId = (await manualRun({ db }, job.id, 'test'))!.id;
  const ended = await executeRun({ db, config, tools: new ToolRegistry([tool]), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: WORKER }, runId);
  expect(second).toMatchObject({ state: 'running', attempt: 2, lease_owner: WORKER });
  return { ended, second: second!, now: (await getRun(db, runId))! };
}

describe('a worker whose attempt was taken over and that claimed the run again', () => {
  it('does not finish attempt 2 with attempt 1\'s late outcome', async () => {
    const { ended, second, now } = await attemptOneEndsLate({ success: true, output: 'done by attempt 1' } as ToolResult);
    expect(ended.kind).toBe('ended_elsewhere');
    // attempt 2's row as its claim left it
    expect(now).toEqual(second);
    const discarded = (await listAudit(database().db, { run_id: now.id, kind: 'run.outcome_discarded' }))[0];
    expect(discarded).toMatchObject({ data: { attempt: 1, worker: WORKER } });
    expect(discarded?.reason).toContain('moved on to attempt 2');
  });

  it('does not send attempt 2 back to retrying with attempt 1\'s late failure, nor record it', async () => {
    const { ended, second, now } = await attemptOneEndsLate({ success: false, errorKind: 'internal', error: 'attempt 1 failed' } as ToolResult);
    expect(ended.kind).toBe('ended_elsewhere');
    expect(now).toEqual(second);
    const retries = (await listAudit(database().db, { run_id: now.id, kind: 'run.state' })).filter((a) => a.actor === 'daemon' && a.outcome === 'retrying');
    expect(retries).toHaveLength(0);
  });
});
