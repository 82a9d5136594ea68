import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS_FOLDER } from '../../src/store/migrate.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { capturedLog } from '../support/captured-log.ts';
import { runCli } from '../support/cli.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { MIGRATION_COUNT } from '../support/migrations.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

// A build older than the schema it runs on (a rollback, or replicas of different releases during an upgrade) finds
// migrations in the ledger it does not know. It works on, but says so: a rollback across schema changes needs care.
type Journal = { entries: { idx: number; version: string; when: number; tag: string; breakpoints: boolean }[] };
const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as Journal;
const last = journal.entries[journal.entries.length - 1]!;
// what a later release would add: two migrations made after this build's newest
const LATER = [1, 2].map((i) => ({ idx: last.idx + i, version: last.version, when: last.when + i * 86_400_000, tag: `${String(last.idx + i).padStart(4, '0')}_later_release_${i}`, breakpoints: true }));

let newer: TestDatabase;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  newer = await freshDatabase({ migrate: false });
  const folder = mkdtempSync(join(tmpdir(), 'echo-newer-release-'));
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  for (const m of LATER) writeFileSync(join(folder, `${m.tag}.sql`), `CREATE TABLE "${m.tag.slice(5)}" ("id" integer);\n`);
  writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: [...journal.entries, ...LATER] }));
  expect((await migrate(newer.pool, { schema: newer.schema, migrationsFolder: folder })).applied).toBe(MIGRATION_COUNT + LATER.length);
  const config = join(folder, 'echo-agent.yaml');
  writeFileSync(config, schemaConfigYaml(newer.schema));
  env = { ECHO_AGENT_CONFIG: config };
});

afterAll(async () => {
  await newer?.drop();
});

const made = LATER.map((m) => new Date(m.when).toISOString());
const warning = () => `warning: schema ${newer.schema} has 2 migrations this build does not know (made ${made[0]} to ${made[1]}): a newer release migrated it`;

describe('a schema a newer release migrated', () => {
  it('a command warns once on stderr, naming the schema and the unknown migrations, and answers', async () => {
    const r = await runCli(['jobs', 'list', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr.split(warning()).length - 1).toBe(1);
  }, 60_000);

  it('`migrate` warns too, applies nothing, and says up to date', async () => {
    const r = await runCli(['migrate'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(warning());
    expect(r.stdout).toBe(`schema ${newer.schema}: up to date (${MIGRATION_COUNT} migrations, none pending)\n`);
  }, 60_000);

  it('the daemon warns at start, naming the schema and the unknown migrations, and runs', async () => {
    const { lines, logger } = capturedLog();
    const daemon = await startDaemon(defaultConfig({ queue: { prefix: `newer-${newer.schema}` } }), {
      logger, http: false, work: false, database: { url: newer.url, schema: newer.schema }, queue: { kind: 'postgres', url: newer.url, schema: `${newer.schema}_q` },
    });
    try {
      expect(lines.find((l) => l.level === 'warn' && String(l.msg).startsWith(warning().replace(/^warning: /, '')))).toMatchObject({ schema: newer.schema, unknown: made });
    } finally {
      await daemon.stop();
    }
  }, 60_000);

  it('migrate(), which the daemon runs at start, reports the unknown migrations it found, and none on a schema of this build', async () => {
    expect(await migrate(newer.pool, { schema: newer.schema })).toEqual({ schema: newer.schema, applied: 0, unknown: made });
    const current = await freshDatabase();
    try {
      expect(await migrate(current.pool, { schema: current.schema })).toEqual({ schema: current.schema, applied: 0, unknown: [] });
    } finally {
      await current.drop();
    }
  });
});
