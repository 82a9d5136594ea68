import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareLedger, migrationStatus, MIGRATIONS_FOLDER } from '../../src/store/migrate.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { capturedLog } from '../support/captured-log.ts';
import { runCli } from '../support/cli.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

// A hotfix build migrated the schema (a row newer than this build's newest), and this build's last migration is not
// recorded: drizzle applies only what is newer than the newest row, so it would never be applied. Not "up to date".
const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number; tag: string }[] };
const LAST = journal.entries[journal.entries.length - 1]!;
const HOTFIX_AT = 1899999999999;

let d: TestDatabase;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  d = await freshDatabase();
  await d.pool.query(`insert into "${d.schema}"."__drizzle_migrations" (hash, created_at) values ('hotfix', $1)`, [HOTFIX_AT]);
  await d.pool.query(`delete from "${d.schema}"."__drizzle_migrations" where created_at = $1`, [LAST.when]);
  // what that migration made is not there either: the hotfix build never had it
  await d.pool.query(`drop index "${d.schema}"."audit_events_run_idx"`);
  const config = join(mkdtempSync(join(tmpdir(), 'echo-stranded-')), 'echo-agent.yaml');
  writeFileSync(config, schemaConfigYaml(d.schema));
  env = { ECHO_AGENT_CONFIG: config };
});

afterAll(async () => {
  await d?.drop();
});

describe('migrations of this build left behind a newer recorded one (migrate.stranded)', () => {
  it('compareLedger names them, apart from pending and unknown ones', () => {
    const known = [{ when: 1, tag: 'a' }, { when: 2, tag: 'b' }, { when: 3, tag: 'c' }, { when: 5, tag: 'e' }];
    expect(compareLedger(known, [1, 3, 4])).toEqual({ pending: ['e'], stranded: ['b'], unknown: [new Date(4).toISOString()] });
    expect(compareLedger(known, [1, 2, 3, 5])).toEqual({ pending: [], stranded: [], unknown: [] });
  });

  it('migrationStatus counts them as pending (commands refuse) and names them', async () => {
    const s = await migrationStatus(d.pool);
    expect(s.stranded).toEqual([LAST.tag]);
    expect(s.pending).toEqual([LAST.tag]);
    expect(s.unknown).toEqual([new Date(HOTFIX_AT).toISOString()]);
    expect(s.known).toBe(journal.entries.length);
  });

  it('`migrate` refuses with exit 69, names them and the remedy, and never says up to date', async () => {
    const r = await runCli(['migrate'], { env });
    expect(r.code, r.stderr).toBe(69);
    expect(r.stdout).not.toContain('up to date');
    expect(r.stderr).toContain(`1 migration of this build is not recorded (${LAST.tag}), while a newer one is (made ${new Date(HOTFIX_AT).toISOString()})`);
    expect(r.stderr).toContain('echo-agent migrate --apply-missing');
  }, 60_000);

  it('the daemon does not start on it, naming them', async () => {
    const { logger } = capturedLog();
    await expect(startDaemon(defaultConfig({ queue: { prefix: `stranded-${d.schema}` } }), {
      logger, http: false, work: false, database: { url: d.url, schema: d.schema }, queue: { kind: 'postgres', url: d.url, schema: `${d.schema}_q` },
    })).rejects.toThrow(`not recorded (${LAST.tag})`);
  }, 60_000);

  it('`migrate --apply-missing` applies and records them; then up to date, counting this build\'s migrations', async () => {
    const r = await runCli(['migrate', '--apply-missing'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`schema ${d.schema}: applied 1 of ${journal.entries.length} migrations: ${LAST.tag}\n`);
    const idx = await d.pool.query(`select 1 from pg_indexes where schemaname = $1 and indexname = 'audit_events_run_idx'`, [d.schema]);
    expect(idx.rowCount).toBe(1);
    const again = await runCli(['migrate'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`schema ${d.schema}: up to date (${journal.entries.length} migrations, none pending)\n`);
    expect((await migrationStatus(d.pool)).stranded).toEqual([]);
  }, 60_000);
});
