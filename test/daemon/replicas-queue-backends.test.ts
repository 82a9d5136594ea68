import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { createJob } from '../../src/store/jobs.ts';
import { capturedLog } from '../support/captured-log.ts';
import { runCli } from '../support/cli.ts';
import { admin, useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL, useRedisPrefix } from '../support/redis.ts';
import { aJob } from '../store/fixtures.ts';

// One schema, two replicas: one with queue.redis_url, one without (BullMQ's PostgreSQL backend). Each consumes only
// its own queue, so a hand-off through the other waits for a reconciler: said at start and by `jobs run`.
const database = useTestDatabase();
const prefix = useRedisPrefix('test-mixed-queues');
const MISMATCH = 'replicas.queue_mismatch';
// the PostgreSQL backend's queue schema this file's daemons made
afterAll(() => admin(`drop schema if exists "${database().schema}_q" cascade`));

const start = (queue: 'redis' | 'postgres', logger = capturedLog().logger) => {
  const { url, schema } = database();
  return startDaemon(defaultConfig({ queue: { prefix } }), {
    logger, http: false, work: false, database: { url, schema },
    queue: queue === 'redis' ? { kind: 'redis', url: TEST_REDIS_URL } : { kind: 'postgres', url, schema: `${schema}_q` },
  });
};

describe('replicas of one schema on different queue backends', () => {
  it('the later one warns at start, naming the other backend; an older release\'s daemon, which names no queue, is not taken for one', async () => {
    const { url, schema } = database();
    // an older release's replica: `echo-agent daemon host:pid schema`, no queue in its name
    const older = new pg.Client({ connectionString: url, application_name: `echo-agent daemon oldhost:7 ${schema}` });
    await older.connect();
    const onRedis = await start('redis');
    const b = capturedLog();
    const onPostgres = await start('postgres', b.logger);
    try {
      const warned = b.lines.filter((l) => l.rule === MISMATCH);
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({ level: 'warn' });
      expect(String(warned[0]!.msg)).toContain('Redis (queue.redis_url)');
      expect(String(warned[0]!.msg)).toContain('waits for a reconciler');
      const apart = warned[0]!.other_queues as { daemon: string; tag: string }[];
      expect(apart.map((o) => o.tag)).toEqual([expect.stringMatching(/^redis\.[0-9a-f]{6}$/)]);
      expect(apart.map((o) => o.daemon).join()).not.toContain('oldhost');
    } finally {
      await onPostgres.stop();
      await onRedis.stop();
      await older.end();
    }
  }, 120_000);

  it('`jobs run` with the Redis config warns when the only daemon connected uses the PostgreSQL backend', async () => {
    const { db, schema } = database();
    await createJob(db, aJob({ name: 'mixed-1' }));
    const file = join(mkdtempSync(join(tmpdir(), 'echo-mixed-queues-')), 'echo-agent.yaml');
    writeFileSync(file, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\nqueue:\n  redis_url: ${TEST_REDIS_URL}\n  prefix: ${prefix}\n`);
    const onPostgres = await start('postgres');
    try {
      const r = await runCli(['jobs', 'run', 'mixed-1'], { env: { ECHO_AGENT_CONFIG: file } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('went to Redis (queue.redis_url), but the daemons connected');
      expect(r.stderr).toContain('consume another queue backend, BullMQ\'s PostgreSQL backend');
      expect(r.stderr).not.toContain('no daemon serving this database and schema is connected now');
    } finally {
      await onPostgres.stop();
    }
  }, 120_000);
});
