import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { createLogger } from '../../src/log/logger.ts';
import { useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL as REDIS_URL, useRedisPrefix } from '../support/redis.ts';

const database = useTestDatabase();
const prefix = useRedisPrefix('test-replicas');

const logged = () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l)); cb(); } }));
  return { logger, lines };
};

describe('daemons that share a database', () => {
  it('name their connections, and a daemon starting says which other daemons are connected', async () => {
    const { url, schema } = database();
    // another replica, as PostgreSQL shows it: a connection carrying a daemon's name
    const other = new pg.Client({ connectionString: url, application_name: 'echo-agent daemon otherhost:42' });
    await other.connect();
    const { logger, lines } = logged();
    const daemon = await startDaemon(defaultConfig({ queue: { prefix }, daemon: { tick_seconds: 1 } }), {
      logger, database: { url, schema }, queue: { kind: 'redis', url: REDIS_URL }, http: false, work: false,
    });
    try {
      const mine = `echo-agent daemon ${hostname()}:${process.pid}`;
      const names = await other.query<{ name: string }>('select application_name as name from pg_stat_activity where datname = current_database()');
      expect(names.rows.map((r) => r.name)).toContain(mine);
      const found = lines.find((l) => l.msg === 'other echo-agent daemons are connected to this database');
      expect(found?.daemons).toContain('otherhost:42');
      expect(found?.daemons).not.toContain(`${hostname()}:${process.pid}`);
    } finally {
      await daemon.stop();
      await other.end();
    }
  }, 60_000);
});
