import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudit } from '../../src/store/audit.ts';
import { databaseNow } from '../../src/store/db.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// Runs and audit records are stamped on the database clock; the CLI runs here on a host whose clock is an hour ahead.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-since-db-clock-'));
const HOUR_AHEAD = fileURLToPath(new URL('../support/shifted-clock.mjs', import.meta.url));
let env: NodeJS.ProcessEnv;
let job: JobRow;
let recent: string;
let older: string;
let record: number;

beforeAll(async () => {
  const { db, schema } = database();
  job = await createJob(db, aJob({ name: 'tonight' }));
  const now = (await databaseNow(db)).getTime();
  const ran = async (minutesAgo: number) => {
    const run = (await insertRun(db, { job_id: job.id, nominal_at: new Date(now - minutesAgo * 60_000) }))!;
    await db.execute(sql`update runs set state = 'failed', error = 'exit 1' where id = ${run.id}`);
    return run.id;
  };
  recent = await ran(10);
  older = await ran(120);
  record = (await appendAudit(db, { kind: 'run.state', actor: 'daemon', job_id: job.id, run_id: recent, outcome: 'failed' })).seq;
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: config, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${HOUR_AHEAD}`.trim() };
});

describe('a relative --since on a host whose clock is an hour ahead', () => {
  it('the CLI process does read its clock an hour ahead (else the tests below prove nothing)', () => {
    const read = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(Date.now() - new Date(0).getTime()))'], { env: { ...process.env, ...env } }));
    expect(read - Date.now()).toBeGreaterThan(59 * 60_000);
  });

  it('runs list --since 30m counts back from the database clock: tonight\'s run is listed, the one two hours ago not', async () => {
    const r = await runCli(['runs', 'list', '--job', job.id, '--since', '30m', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((x) => x.id)).toEqual([recent]);
    const text = await runCli(['runs', 'list', '--job', job.id, '--since', '30m'], { env });
    expect(text.stdout).toContain(recent);
    expect(text.stdout).not.toContain(older);
  });

  it('audit list --job --since 30m lists the record just written', async () => {
    const r = await runCli(['audit', 'list', '--job', job.id, '--since', '30m', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { seq: number }[]).map((x) => x.seq)).toContain(record);
  });

  it('audit export --job --since 30m exports the record just written', async () => {
    const r = await runCli(['audit', 'export', '--job', job.id, '--since', '30m'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq)).toContain(record);
  });

  it('an absolute ISO --since stays as given, whatever either clock says', async () => {
    const r = await runCli(['runs', 'list', '--job', job.id, '--since', '2000-01-01', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((x) => x.id).sort()).toEqual([recent, older].sort());
  });

  it('a --since of neither shape is still refused before the database is read, naming the option, exit 64', async () => {
    const r = await runCli(['runs', 'list', '--since', '30 minutes'], { env });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('--since: expected an ISO-8601 date or instant');
  });
});
