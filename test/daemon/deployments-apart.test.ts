import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { queueSchemaFor, startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createJob } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db.ts';
import { dropRedisKeys, TEST_REDIS_URL as REDIS_URL } from '../support/redis.ts';

// Two deployments, each with its tables in its own schema of one database (database.url sets search_path), and
// one queue backend with the same queue.prefix: the PostgreSQL backend in that database, or one Redis. Each
// must run only its own runs. Sharing a queue, a worker took the other deployment's runs, found them missing
// from its database and dropped them: they waited for the reconciler (30 s), and instants due meanwhile were
// skipped as busy.
const RUNS_EACH = 8;
let a: TestDatabase;
let b: TestDatabase;

beforeAll(async () => {
  [a, b] = await Promise.all([freshDatabase(), freshDatabase()]);
});
afterAll(async () => {
  await Promise.all([a?.drop(), b?.drop()]);
});

const urlOf = (schema: string) => `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
const schemaOf = async (d: TestDatabase) => (await d.pool.query<{ s: string }>('select current_schema() as s')).rows[0]!.s;

async function queueRuns(d: TestDatabase, daemon: Daemon, name: string): Promise<string[]> {
  const job = await createJob(d.db, {
    name, owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false, overlap_policy: 'allow',
    payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
  });
  const ids: string[] = [];
  for (let i = 0; i < RUNS_EACH; i++) ids.push((await manualRun({ db: d.db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!.id);
  return ids;
}

async function settled(d: TestDatabase, ids: readonly string[], withinMs: number): Promise<string[]> {
  const started = Date.now();
  for (;;) {
    const states = (await listRuns(d.db, { limit: 100 })).filter((r) => ids.includes(r.id)).map((r) => r.state);
    if (states.every((s) => s === 'succeeded') || Date.now() - started > withinMs) return states;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('two deployments on one database server and one queue backend keep to their own runs', () => {
  it.each(['postgres', 'redis'] as const)('%s queue, the same queue.prefix: every run of each succeeds well within a reconcile interval', async (backend) => {
    const prefix = `apart-${randomBytes(3).toString('hex')}`;
    const daemons: Daemon[] = [];
    try {
      for (const d of [a, b]) {
        const config = defaultConfig({
          database: { url: urlOf(await schemaOf(d)) }, daemon: { tick_seconds: 0.2, reconcile_seconds: 60 },
          queue: { prefix, ...(backend === 'redis' ? { redis_url: REDIS_URL } : {}) },
        });
        daemons.push(await startDaemon(config, { logger: silentLogger, http: false }));
      }
      const [runsA, runsB] = [await queueRuns(a, daemons[0]!, 'mine-a'), await queueRuns(b, daemons[1]!, 'mine-b')];
      // the reconciler passes at start and then every 60 s here: a run the other deployment took would still be queued
      expect(await settled(a, runsA, 20_000)).toEqual(Array(RUNS_EACH).fill('succeeded'));
      expect(await settled(b, runsB, 20_000)).toEqual(Array(RUNS_EACH).fill('succeeded'));
    } finally {
      await Promise.all(daemons.map((d) => d.stop()));
      if (backend === 'postgres') await a.pool.query(`drop schema if exists "${queueSchemaFor(prefix)}" cascade`);
      else await dropRedisKeys(prefix);
    }
  }, 60_000);
});
