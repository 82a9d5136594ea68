import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createJob } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import { ROOT, runCli } from '../support/cli.ts';
import { daemonConfigFile, spawnDaemon } from '../support/daemon-process.ts';
import { freshDatabase, useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';
import { MIGRATION_COUNT } from '../support/migrations.ts';
import { TEST_REDIS_URL, useRedisPrefix } from '../support/redis.ts';
import { until } from '../support/until.ts';

const prefix = useRedisPrefix('test-second-signal');
const database = useTestDatabase();
// a model that never answers: the run waits on it until it is cancelled
const model = await startFakeModel(() => ({ until: new Promise(() => {}) }));
afterAll(() => model.close());

describe('the daemon stopped by a signal', () => {
  it('says at start which version runs and which migrations it applied, by name', async () => {
    const unmigrated = await freshDatabase({ migrate: false });
    try {
      const daemon = spawnDaemon(daemonConfigFile(unmigrated.schema, { redisUrl: TEST_REDIS_URL, prefix: `${prefix}-start` }, ['reconcile_seconds: 600']));
      await daemon.until('daemon started');
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited, daemon.log().slice(-3000)).toBe(0);
      const lines = daemon.lines();
      const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      expect(lines.find((l) => l.msg === 'daemon started')).toMatchObject({ version });
      const tags = (JSON.parse(readFileSync(join(ROOT, 'drizzle/meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] }).entries.map((e) => e.tag);
      expect(tags).toHaveLength(MIGRATION_COUNT);
      expect(lines.find((l) => l.msg === 'database ready')).toMatchObject({ schema: unmigrated.schema, applied: tags });
    } finally {
      await unmigrated.drop();
    }
  }, 120_000);

  it('a second SIGTERM during the graceful stop cancels the running run at once and records it interrupted, instead of waiting out the stop timeout', async () => {
    const { db, schema } = database();
    const file = daemonConfigFile(schema, { redisUrl: TEST_REDIS_URL, prefix }, ['stop_timeout_seconds: 3600', 'reconcile_seconds: 600']);
    appendFileSync(file, ['model:', `  base_url: ${model.url}`, '  name: held', '  api_key: test-key', '  max_retries: 0', '  timeout_seconds: 3600', ''].join('\n'));
    const job = await createJob(db, {
      name: 'held-by-its-model', owner: 'test', created_by: 'test', schedule: '0 3 1 1 *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'agent', prompt: 'wait for the model' }, max_retries: 0, timeout_seconds: 3600,
    });
    const daemon = spawnDaemon(file);
    try {
      await daemon.until('daemon started');
      const run = await runCli(['jobs', 'run', job.id], { env: { ECHO_AGENT_CONFIG: file } });
      expect(run.code, run.stderr).toBe(0);
      await until('the run starting', async () => (await listRuns(db, { job_id: job.id, states: ['running'] })).length === 1, 60_000, 200);
      await until('the model being asked', () => model.requests.length > 0, 60_000, 200);
      const port = daemon.lines().find((l) => l.msg === 'health and metrics listening')!.port as number;

      daemon.child.kill('SIGTERM');
      await daemon.until('stopping: no new firing');
      expect(daemon.lines().find((l) => String(l.msg).startsWith('stopping:'))).toMatchObject({
        running: 1, stop_timeout_seconds: 3600, msg: expect.stringMatching(/waiting for 1 running run\(s\) until \S+Z \(daemon\.stop_timeout_seconds\)/),
      });
      // a rolling restart's load balancer sees the stop at once
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'stopping' });

      daemon.child.kill('SIGTERM');
      // the stop timeout is an hour: only the second signal ends the stop within this ceiling
      const exit = await Promise.race([daemon.exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 90_000))]);
      expect(exit, daemon.log().slice(-3000)).toBe(0);
      const [ended] = await listRuns(db, { job_id: job.id });
      expect(ended).toMatchObject({ state: 'interrupted', error: expect.stringContaining('shutdown') });
      const lines = daemon.lines();
      expect(lines.find((l) => String(l.msg).startsWith('a second SIGTERM while stopping: cancelling 1 running run(s) now'))).toMatchObject({ level: 'warn', running: 1 });
      expect(lines.map((l) => l.msg)).toContain('daemon stopped');
    } finally {
      daemon.child.kill('SIGKILL');
    }
  }, 120_000);
});
