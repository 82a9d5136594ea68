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
import { getRun } from '../../src/store/runs.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { Tool } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('a run cancelled while its attempt fails retryably', () => {
  it('stays cancelled and gets no "retrying" record: the record goes in only with the change', async () => {
    const db = database().db;
    const config = defaultConfig({ tools: { also_allow: ['cancel_then_fail'] } });
    let runId = '';
    const tool: Tool = {
      name: 'cancel_then_fail', description: 'x', parameters: { type: 'object' }, timeoutSeconds: 30, maxRetries: 0, streamCapable: false,
      capabilities: [], riskLevel: 'read_only', isReady: () => true, readinessDetail: () => [true, 'ready'],
      async execute() {
        await db.execute(sql`update runs set state = 'cancelled', finished_at = now(), lease_expires_at = null where id = ${runId}`);
        return { success: false, errorKind: 'internal', error: 'boom' };
      },
    } as unknown as Tool;
    const job = await createJob(db, {
      name: 'cancelled-mid', owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', overlap_policy: 'allow',
      payload: { kind: 'steps', steps: [{ tool: 'cancel_then_fail', args: {} }] }, tools: [], paused: false, max_retries: 2,
    } as never);
    const queued = (await manualRun({ db }, job.id, 'test'))!;
    runId = queued.id;
    const result = await executeRun({ db, config, tools: new ToolRegistry([tool]), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' }, queued.id);
    const states = await listAudit(db, { run_id: queued.id, order: 'asc' });
    expect(result.kind).not.toBe('retrying');
    expect((await getRun(db, queued.id))!.state).toBe('cancelled');
    expect(states.filter((a) => a.kind === 'run.state' && a.outcome === 'retrying')).toHaveLength(0);
  });
});
