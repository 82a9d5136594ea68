import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { admin, freshDatabase, type TestDatabase } from '../support/db.ts';
import { freeServerPort } from '../support/ports.ts';
import { tcpProxy } from '../support/tcp-proxy.ts';

// `echo-agent migrate` is the one command an operator runs to change a production schema: its failure must say what
// failed in the words every other command uses, and what became of the schema (the migrations run in one transaction).
const dir = mkdtempSync(join(tmpdir(), 'echo-migrate-failure-'));
const role = `echo_nomig_${randomBytes(5).toString('hex')}`;
let database: TestDatabase;

const configFor = (url: string): NodeJS.ProcessEnv => {
  const file = join(dir, `${randomBytes(4).toString('hex')}.yaml`);
  writeFileSync(file, `database:\n  url: ${url}\n`);
  return { ECHO_AGENT_CONFIG: file };
};
const ledger = async () => (await database.pool.query(`select to_regclass('"${database.schema}".__drizzle_migrations') as t`)).rows[0]!.t;

beforeAll(async () => {
  database = await freshDatabase({ migrate: false });
  await admin(`create role ${role} login`);
});

afterAll(async () => {
  await admin(`drop role if exists ${role}`);
  await database?.drop();
});

describe('echo-agent migrate, failing', () => {
  it('refused by the database: says so with the SQLSTATE and the role, and that nothing was applied (exit 69)', async () => {
    const env = configFor(`postgresql://${role}@127.0.0.1:5432/test?options=-c%20search_path%3D${database.schema}`);
    const r = await runCli(['migrate'], { env });
    expect(r.code, r.stderr).toBe(69);
    expect(r.stderr).toMatch(/^echo-agent: migrating the database failed, nothing was applied \(the pending migrations run in one transaction\): the database refused: permission denied for database test \(SQLSTATE 42501; the role database\.url logs in as lacks this privilege\)\n$/);
    expect(await ledger()).toBeNull();
  }, 60_000);

  it('with no server there: cannot reach it, and nothing was applied', async () => {
    const port = await freeServerPort();
    const r = await runCli(['migrate'], { env: configFor(`postgresql://postgres@127.0.0.1:${port}/test`) });
    expect(r.code, r.stderr).toBe(69);
    expect(r.stderr).toMatch(/^echo-agent: migrating the database failed, nothing was applied: cannot reach the database \(database\.url\): .*ECONNREFUSED/);
  }, 60_000);

  it('its connection lost halfway: says the outcome is not known and that running it again is safe, and it is', async () => {
    const proxy = await tcpProxy(5432);
    try {
      const env = configFor(`postgresql://postgres@127.0.0.1:${proxy.port}/test?options=-c%20search_path%3D${database.schema}`);
      proxy.holdRepliesAfter('create table');
      const running = runCli(['migrate'], { env });
      while (!proxy.holdingReplies()) await new Promise((r) => setTimeout(r, 20));
      proxy.drop();
      const r = await running;
      expect(r.code, r.stderr).toBe(69);
      expect(r.stderr).toMatch(/^echo-agent: migrating the database failed, it is not known whether the pending migrations were applied; run echo-agent migrate again \(it applies only what is pending\): cannot reach the database \(database\.url\): /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await proxy.close();
    }
    const again = await runCli(['migrate'], { env: configFor(`postgresql://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database.schema}`) });
    expect(again.code, again.stderr).toBe(0);
    expect(await ledger()).not.toBeNull();
  }, 60_000);
});
