import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_APPLICATION, openDatabase, type Database } from '../../src/store/db.ts';
import { migrateReporting } from '../../src/store/migrate.ts';
import { newSchemaWarning } from '../../src/store/new-schema-check.ts';
import { useOwnDatabase } from '../support/db.ts';

// A replica whose database.url has a mistyped search_path (op_mian for op_main) set up a new, empty deployment at
// start and logged only `database ready`: the note on other daemons counts those of its own schema only.
// A database of its own: the check reads which daemons are connected to the whole database.
const { url } = useOwnDatabase('echo_new_schema');

const opened: (Database | pg.PoolClient)[] = [];
afterEach(async () => {
  for (const c of opened.splice(0).reverse()) await ('pool' in c ? c.close() : c.release());
});

/** A daemon of `schema`, connected as the daemon connects (openDatabase with its name), its connection held. */
async function daemonOn(schema: string, hostPid: string): Promise<Database> {
  const d = openDatabase({ url, schema, applicationName: `${DAEMON_APPLICATION} ${hostPid}`, poolMax: 2 });
  opened.push(d);
  opened.push(await d.pool.connect());
  return d;
}

/** A daemon's start on `schema`: its migration, then the check, on its own pool. */
async function start(schema: string, hostPid: string): Promise<string | null> {
  const d = await daemonOn(schema, hostPid);
  return newSchemaWarning(d.db, await migrateReporting(d.pool, { schema }));
}

beforeAll(async () => {
  const d = openDatabase({ url, schema: 'op_main', poolMax: 1 });
  await migrateReporting(d.pool, { schema: 'op_main' });
  await d.close();
});

describe('a start that sets up a new schema while daemons of another schema are connected', () => {
  it('warns, naming the new schema and the other schema\'s daemons', async () => {
    await daemonOn('op_main', 'web-1:41');
    await daemonOn('op_main', 'web-2:42');
    const warning = await start('op_mian', 'web-3:43');
    expect(warning).toBe('set up schema op_mian as a new, empty deployment (every migration applied), while daemons of schema op_main '
      + '(web-1:41, web-2:42) are connected to this database: a mistyped search_path in database.url\'s options? '
      + 'This daemon serves only the jobs of its own schema; if a new deployment was meant, ignore this');
    // the next start of it finds its migrations applied: a deployment of its own by now, said once
    expect(await start('op_mian', 'web-3:44')).toBeNull();
  });

  it('says nothing with no daemon of another schema connected', async () => {
    expect(await start('fresh_a', 'web-1:51')).toBeNull();
  });

  it('says nothing beside replicas of the new schema: a new deployment started on two replicas together', async () => {
    await daemonOn('fresh_b', 'web-2:52');
    expect(await start('fresh_b', 'web-3:53')).toBeNull();
  });

  it('says nothing beside an older release\'s daemon, whose name says no schema: it may serve this one', async () => {
    const older = new pg.Client({ connectionString: url, application_name: `${DAEMON_APPLICATION} old:54` });
    await older.connect();
    try {
      expect(await start('fresh_c', 'web-4:55')).toBeNull();
    } finally {
      await older.end();
    }
  });

  it('says nothing for a schema that already had its migrations, whoever else is connected', async () => {
    await daemonOn('op_main', 'web-1:61');
    expect(await start('op_main', 'web-2:62')).toBeNull();
  });
});
