import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openDatabase } from '../../src/store/db.ts';
import { createJob } from '../../src/store/jobs.ts';
import { migrate } from '../../src/store/migrate.ts';
import { runCli } from '../support/cli.ts';
import { useOwnDatabase } from '../support/db.ts';
import { TEST_REDIS_URL, useRedisPrefix } from '../support/redis.ts';
import { aJob } from '../store/fixtures.ts';

// Two deployments in two schemas of one database. A daemon serves one of them: `jobs run` in the other is told
// that nothing will take its run, rather than reassured by the neighbour's daemon. A database of its own, since
// other test files connect stand-in daemons to the shared one.
const { url } = useOwnDatabase('echo_schema');
const inSchema = (schema: string) => `${url}?options=-c%20search_path%3D${schema}`;
const prefix = useRedisPrefix('test-run-schema');
const silent = createLogger('warn', new Writable({ write(_c, _e, cb) { cb(); } }));
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  for (const schema of ['served', 'neighbour']) {
    const d = openDatabase({ url, schema, poolMax: 1 });
    await migrate(d.pool, { schema });
    if (schema === 'served') for (const job of ['first', 'second']) await createJob(d.db, aJob({ name: job }));
    await d.close();
  }
  const file = join(mkdtempSync(join(tmpdir(), 'echo-run-schema-')), 'echo-agent.yaml');
  writeFileSync(file, `database:\n  url: ${inSchema('served')}\nqueue:\n  redis_url: ${TEST_REDIS_URL}\n  prefix: ${prefix}\n`);
  env = { ECHO_AGENT_CONFIG: file };
});

const daemonOn = (database: { url: string; schema?: string }) => startDaemon(defaultConfig({ queue: { prefix } }), {
  logger: silent, database, queue: { kind: 'redis', url: TEST_REDIS_URL }, http: false, work: false,
});

describe('jobs run with daemons on other schemas of the database', () => {
  it('warns that no daemon serves its schema while only a neighbour\'s runs, and not once its own runs', async () => {
    const neighbour = await daemonOn({ url, schema: 'neighbour' });
    try {
      const alone = await runCli(['jobs', 'run', 'first'], { env });
      expect(alone.code, alone.stderr).toBe(0);
      expect(alone.stderr).toContain('no daemon serving this database and schema is connected now: the run waits in the queue until one starts');
    } finally {
      await neighbour.stop();
    }
    // the deployment's own daemon, reaching its schema through database.url's search_path as in production
    const own = await daemonOn({ url: inSchema('served') });
    try {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const names = (await c.query<{ name: string }>('select application_name as name from pg_stat_activity where datname = current_database()')).rows.map((r) => r.name);
      await c.end();
      // host:pid, the queue it consumes (backend and a short hash), the schema
      expect(names.some((n) => new RegExp(`^echo-agent daemon ${hostname()}:${process.pid}/(redis|pg)\\.[0-9a-f]{6} served$`).test(n)), names.join('\n')).toBe(true);
      const served = await runCli(['jobs', 'run', 'second'], { env });
      expect(served.code, served.stderr).toBe(0);
      expect(served.stderr).not.toContain('no daemon is connected');
    } finally {
      await own.stop();
    }
  }, 120_000);
});
