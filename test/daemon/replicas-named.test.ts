import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openDatabase, otherDaemons } from '../../src/store/db.ts';
import { useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL as REDIS_URL, useRedisPrefix } from '../support/redis.ts';
import { queueTag } from '../../src/queue/queue-tag.ts';

const database = useTestDatabase();
const prefix = useRedisPrefix('test-replicas');

const logged = () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l)); cb(); } }));
  return { logger, lines };
};

describe('daemons that share a database', () => {
  it('name their connections with their schema, and a daemon starting says which other daemons of its schema are connected', async () => {
    const { url, schema } = database();
    // another replica, as PostgreSQL shows it: a connection carrying a daemon's name
    const other = new pg.Client({ connectionString: url, application_name: 'echo-agent daemon otherhost:42' });
    await other.connect();
    // a daemon of another deployment, in another schema of the database: no replica of this one
    const neighbour = new pg.Client({ connectionString: url, application_name: 'echo-agent daemon otherhost:43 another_schema' });
    await neighbour.connect();
    const { logger, lines } = logged();
    const daemon = await startDaemon(defaultConfig({ queue: { prefix }, daemon: { tick_seconds: 1 } }), {
      logger, database: { url, schema }, queue: { kind: 'redis', url: REDIS_URL }, http: false, work: false,
    });
    try {
      // with the schema it serves
      const mine = `echo-agent daemon ${hostname()}:${process.pid}/${queueTag({ kind: 'redis', url: REDIS_URL }, prefix)} ${schema}`;
      const names = await other.query<{ name: string }>('select application_name as name from pg_stat_activity where datname = current_database()');
      expect(names.rows.map((r) => r.name)).toContain(mine);
      const found = lines.find((l) => l.msg === 'other echo-agent daemons are connected to this database');
      const daemons = (found?.daemons ?? []) as string[];
      expect(daemons).toContain('otherhost:42');
      expect(daemons.join()).not.toContain(`${hostname()}:${process.pid}`);
      expect(daemons.join()).not.toContain('otherhost:43');
    } finally {
      await daemon.stop();
      await other.end();
      await neighbour.end();
    }
  }, 60_000);

  it('a daemon on a host whose name is long finds its own connection, whose name was cut to fit 63 bytes, not another daemon', async () => {
    const { url, schema } = database();
    const mine = `echo-agent daemon ip-10-20-30-40.eu-central-1.compute.internal.example:4242`;
    expect(mine.length).toBeGreaterThan(63);
    // its connections, named as the daemon names them
    const self = openDatabase({ url, schema, applicationName: mine, poolMax: 1 });
    try {
      const names = await self.pool.query<{ name: string }>('select application_name as name from pg_stat_activity where pid = pg_backend_pid()');
      expect(Buffer.byteLength(names.rows[0]!.name)).toBeLessThanOrEqual(63);
      expect(await otherDaemons(self.db, mine)).toEqual([]);
    } finally {
      await self.close();
    }
  });
});
