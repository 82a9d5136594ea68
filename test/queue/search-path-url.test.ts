import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { queueSchemaFor, startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { queueConnectionUrl } from '../../src/queue/run-queue.ts';
import { TEST_DATABASE_URL, useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('a database.url that sets a search_path', () => {
  it('keeps echo-agent\'s tables in that schema and the PostgreSQL-backend queue working beside them', async () => {
    const { schema, db } = database();
    const url = `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const config = defaultConfig({ database: { url }, queue: { prefix: `sp-${randomBytes(3).toString('hex')}` }, daemon: { tick_seconds: 0.2 } });
    const daemon = await startDaemon(config, { logger: silentLogger, http: false });
    try {
      const job = await createJob(db, {
        name: 'sp', owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
        payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
      });
      const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
      let state = 'queued';
      for (let i = 0; i < 100 && !['succeeded', 'failed'].includes(state); i++) {
        await new Promise((r) => setTimeout(r, 100));
        state = (await getRun(db, run.id))!.state;
      }
      expect(state).toBe('succeeded');
    } finally {
      await daemon.stop();
      await database().pool.query(`drop schema if exists "${queueSchemaFor(config.queue.prefix)}" cascade`);
    }
  }, 30_000);

  it('drops only the search_path from the queue connection\'s options', () => {
    expect(queueConnectionUrl('postgres://p@h/db?options=-c%20statement_timeout%3D5000%20-c%20search_path%3Dx')).toBe('postgres://p@h/db?options=-c+statement_timeout%3D5000');
    expect(queueConnectionUrl('postgres://p@h/db?options=-c%20search_path%3Dx&sslmode=disable')).toBe('postgres://p@h/db?sslmode=disable');
    // a socket directory with a user: pg takes it, WHATWG URL does not
    expect(queueConnectionUrl('postgres://u@/db?host=%2Frun%2Fpostgresql&options=-c%20search_path%3Dx')).toBe('postgres://u@/db?host=%2Frun%2Fpostgresql');
  });
});
