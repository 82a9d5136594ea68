import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { createJob } from '../../src/store/jobs.ts';
import { migrate } from '../../src/store/migrate.ts';
import { runCli } from '../support/cli.ts';
import { useOwnDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// A database of its own: whether a daemon is connected is asked of the whole database, and other test
// files run daemons in schemas of the shared one.
const { name, url } = useOwnDatabase('echo_run');
let database: Database;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  database = openDatabase({ url, poolMax: 2 });
  await migrate(database.pool);
  await createJob(database.db, aJob({ name: 'by-hand' }));
  await createJob(database.db, aJob({ name: 'by-hand-2' }));
  const file = join(mkdtempSync(join(tmpdir(), 'echo-run-nodaemon-')), 'echo-agent.yaml');
  writeFileSync(file, `database:\n  url: ${url}\nqueue:\n  prefix: ${name}\n`);
  env = { ECHO_AGENT_CONFIG: file };
});

afterAll(async () => {
  await database.close();
});

describe('jobs run', () => {
  it('says the run waits when no daemon is connected, and says nothing more when one is', async () => {
    const alone = await runCli(['jobs', 'run', 'by-hand'], { env });
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stdout).toMatch(/^run run_\S+ of job_\S+ queued\n$/);
    expect(alone.stderr).toContain('no daemon serving this database and schema is connected now: the run waits in the queue until one starts');
    // a daemon, as PostgreSQL shows it
    const daemon = new pg.Client({ connectionString: url, application_name: 'echo-agent daemon elsewhere:7' });
    await daemon.connect();
    try {
      const served = await runCli(['jobs', 'run', 'by-hand-2'], { env });
      expect(served.code, served.stderr).toBe(0);
      expect(served.stderr).not.toContain('no daemon is connected');
    } finally {
      await daemon.end();
    }
  }, 60_000);
});
