import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_APPLICATION, daemonConnectionName, openDatabase, otherDaemons, type Database } from '../../src/store/db.ts';
import { useOwnDatabase } from '../support/db.ts';

// A database of its own: which daemons are connected is asked of the whole database, and other test files
// connect daemons and stand-ins to the shared one.
const { url } = useOwnDatabase('echo_names');

const LONG = 'echo_staging_eu_central_1_with_a_name_that_fills_the_identifier';
const LONG_TWIN = 'echo_staging_eu_central_1_another_deployment_with_a_long_name';
// a host name that leaves an older release's `<name> echo_staging` cut by the server to `… ech`
const HOST = 'ci-runner-0042.eu-central-1.internal';
const SCHEMAS = ['echo', 'echo_staging', 'neighbour', LONG, LONG_TWIN];

const opened: (Database | pg.Client)[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await ('pool' in c ? c.close() : c.end());
});

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  for (const s of [...SCHEMAS, 'überall']) await admin.query(`create schema "${s}"`);
  await admin.end();
});

/** A daemon's connection to `schema`, opened as the daemon opens it (openDatabase with its name); its name as the server keeps it. */
async function daemonOn(schema: string | { url: string }, pid = 4242, host = HOST): Promise<{ mine: string; name: string; db: Database }> {
  const mine = `${DAEMON_APPLICATION} ${host}:${pid}`;
  const db = typeof schema === 'string'
    ? openDatabase({ url, schema, applicationName: mine, poolMax: 1 })
    : openDatabase({ url: schema.url, applicationName: mine, poolMax: 1 });
  opened.push(db);
  const { rows } = await db.pool.query<{ name: string }>('select application_name as name from pg_stat_activity where pid = pg_backend_pid()');
  return { mine, name: rows[0]!.name, db };
}

/** What `jobs run` asks from a deployment in `schema`: the daemons serving it. */
async function daemonsServing(schema: string): Promise<string[]> {
  const cli = openDatabase({ url, schema, poolMax: 1 });
  opened.push(cli);
  return otherDaemons(cli.db, '');
}

/** A connection named as an older release named it: `<name> <schema>` (or no schema, older still), cut by the server at 63 bytes. */
async function olderRelease(hostPid: string, schema: string | null): Promise<string> {
  const name = `${DAEMON_APPLICATION} ${hostPid}${schema === null ? '' : ` ${schema}`}`;
  const c = new pg.Client({ connectionString: url, application_name: name });
  opened.push(c);
  await c.connect();
  const { rows } = await c.query<{ name: string }>('select application_name as name from pg_stat_activity where pid = pg_backend_pid()');
  return rows[0]!.name;
}

describe('daemon connection names carry the schema they serve exactly, however long the names', () => {
  it('a daemon of echo_staging on a long host name is not taken for one serving echo', async () => {
    // the scenario holds: an older release's name for it was cut to `… ech`
    expect(`${DAEMON_APPLICATION} ${HOST}:4242 echo_staging`.slice(0, 63)).toMatch(/ ech$/);
    const staging = await daemonOn('echo_staging');
    expect(await daemonsServing('echo')).toEqual([]);
    expect(await daemonsServing('echo_staging')).toEqual([staging.name]);
    // whole, readable, and as the lookup expects it
    expect(Buffer.byteLength(staging.name)).toBeLessThanOrEqual(63);
    expect(staging.name).toMatch(/ echo_staging$/);
    expect(staging.name).toBe(daemonConnectionName(staging.mine, 'echo_staging'));
  });

  it('a schema too long to fit is carried as its first characters and a hash: schemas alike in their first characters stay apart', async () => {
    const long = await daemonOn(LONG);
    expect(Buffer.byteLength(long.name)).toBeLessThanOrEqual(63);
    expect(long.name).toMatch(new RegExp(`^${DAEMON_APPLICATION} ci-runner-\\S*:4242 ${LONG.slice(0, 16)}~[0-9a-f]{10}$`));
    expect(await daemonsServing(LONG)).toEqual([long.name]);
    expect(await daemonsServing(LONG_TWIN)).toEqual([]);
    expect(await daemonsServing('echo')).toEqual([]);
    const twin = await daemonOn(LONG_TWIN, 4243);
    expect(await daemonsServing(LONG_TWIN)).toEqual([twin.name]);
    expect(await daemonsServing(LONG)).toEqual([long.name]);
  });

  it('replicas on one long host name tell themselves from each other by their pids', async () => {
    // so long that the name alone passes 63 bytes: cut at the end, the pids would go
    const host = 'ip-10-20-30-40.eu-central-1.compute.internal.example.org';
    expect(`${DAEMON_APPLICATION} ${host}`.length).toBeGreaterThan(63);
    const a = await daemonOn(LONG, 4242, host);
    const b = await daemonOn(LONG, 4243, host);
    expect(a.name).not.toBe(b.name);
    expect(await otherDaemons(a.db.db, a.mine)).toEqual([b.name]);
    expect(await otherDaemons(b.db.db, b.mine)).toEqual([a.name]);
  });

  it('a schema that is not plain ASCII, reached through database.url\'s search_path, is carried by its hash and found', async () => {
    const inUberall = `${url}?options=${encodeURIComponent('-c search_path="überall"')}`;
    const daemon = await daemonOn({ url: inUberall });
    expect(daemon.name).toMatch(/ _berall~[0-9a-f]{10}$/);
    const cli = openDatabase({ url: inUberall, poolMax: 1 });
    opened.push(cli);
    expect(await otherDaemons(cli.db, '')).toEqual([daemon.name]);
    expect(await daemonsServing('echo')).toEqual([]);
  });

  it('names of an older release still count: whole ones for their schema, cut ones and ones without a schema for any they may serve', async () => {
    const whole = await olderRelease('old-host:4000', 'echo');
    expect(await daemonsServing('echo')).toEqual([whole]);
    expect(await daemonsServing('echo_staging')).toEqual([]);
    // cut by the server to `… ech`: what was cut away is not known, so it may serve either
    const cut = await olderRelease(`${HOST}:4001`, 'echo_staging');
    expect(cut).toMatch(/ ech$/);
    expect(await daemonsServing('echo')).toEqual([cut, whole].sort());
    expect(await daemonsServing('echo_staging')).toEqual([cut]);
    expect(await daemonsServing('neighbour')).toEqual([]);
    const unnamed = await olderRelease('old-host:4002', null);
    expect(await daemonsServing('neighbour')).toEqual([unnamed]);
  });
});
