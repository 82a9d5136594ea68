import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentRuntime } from '../../src/agent/runtime.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { openDatabase } from '../../src/store/db.ts';
import { createJob, getJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const config = defaultConfig({ tools: { workspace: mkdtempSync(join(tmpdir(), 'echo-dbcause-')) } });

describe('a run that fails because of the database', () => {
  it('records the innermost cause (the refused connection), never drizzle\'s query text and parameters', async () => {
    const { db } = database();
    const job = await createJob(db, {
      name: 'db-cause', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [],
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
    });
    const run = (await manualRun({ db }, job.id, 'test'))!;
    // a real drizzle failure: a query to a port where no server listens
    const nowhere = openDatabase({ url: 'postgres://postgres@127.0.0.1:1/test' });
    const base = { db, config, tools: builtinTools(config, { db }, {}, []), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' };
    const runtime = daemonAgentRuntime(base);
    const broken = { ...runtime, hosting: async () => { await getJob(nowhere.db, job.id); throw new Error('unreachable'); } } as AgentRuntime;
    try {
      expect(await executeRun({ ...base, agent: broken }, run.id)).toMatchObject({ kind: 'finished', state: 'failed' });
    } finally {
      await nowhere.close();
    }
    const stored = (await getRun(db, run.id))!;
    const [record] = await listAudit(db, { run_id: run.id, kind: 'run.state' });
    for (const text of [stored.error ?? '', record?.reason ?? '']) {
      expect(text).toMatch(/^the database was unreachable \(.*ECONNREFUSED.*127\.0\.0\.1:1\b/);
      expect(text).not.toMatch(/Failed query|select |params:/i);
    }
  });
});
