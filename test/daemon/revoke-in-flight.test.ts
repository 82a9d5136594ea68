import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { authorise, crashTestConfig } from '../support/crash-config.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { heldTool } from '../support/held-tool.ts';

const database = useTestDatabase();

describe('revoking a grant while a run of the job is under way', () => {
  it('refuses the run every later call that relied on the grant, and says why in the audit log', async () => {
    const { db, url, schema } = database();
    const job = await createJob(db, {
      name: 'revoked-mid-run', owner: 'test', created_by: 'test', schedule: '0 0 1 1 *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'test_slow', args: {} }, { tool: 'test_slow', args: {} }] }, delivery: { notify: 'ops' },
    });
    await authorise(db, job);
    const held = heldTool('write');
    const config = defaultConfig({
      ...crashTestConfig(`test-revoke-${randomBytes(3).toString('hex')}`), daemon: { tick_seconds: 0.2, reconcile_seconds: 60 },
      notify: { targets: { ops: { url: 'https://hooks.example/ops' } } },
    });
    const daemon = await startDaemon(config, {
      logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, extraTools: [held.tool],
    });
    try {
      const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
      await held.started;
      // as an admin does it: the CLI says what happens to the run under way
      const cfgFile = join(mkdtempSync(join(tmpdir(), 'echo-revoke-')), 'echo-agent.yaml');
      writeFileSync(cfgFile, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
      const cli = await runCli(['grants', 'revoke', job.id, '--why', 'misbehaving', '--as', 'admin'], { env: { ECHO_AGENT_CONFIG: cfgFile } });
      expect(cli.code, cli.stderr).toBe(0);
      expect(cli.stdout).toContain(`1 run(s) of this job are running now (${run.id}): their next call that relies on the grant (a write) is refused (unattended.grant_withdrawn)`);
      held.release();
      const start = Date.now();
      while (!['failed', 'succeeded', 'denied'].includes((await getRun(db, run.id))!.state)) {
        if (Date.now() - start > 20_000) throw new Error('the run never ended');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(held.calls()).toBe(1);
      expect((await getRun(db, run.id))!.state).toBe('denied');
      const decisions = await listAudit(db, { run_id: run.id, kind: 'gate.decision', order: 'asc' });
      expect(decisions.map((d) => [d.outcome, d.step, d.rule])).toEqual([['allow', 4, 'unattended.cron_authorized'], ['deny', 4, 'unattended.grant_withdrawn']]);
      // and its outcome goes nowhere: the delivery target was part of what the revoked grant covered
      let deliveries = await listAudit(db, { run_id: run.id, kind: 'run.delivery' });
      for (let i = 0; i < 50 && deliveries.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        deliveries = await listAudit(db, { run_id: run.id, kind: 'run.delivery' });
      }
      expect(deliveries.map((d) => d.rule)).toEqual(['delivery.not_authorized']);
    } finally {
      await daemon.stop();
    }
  }, 40_000);
});
