import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAudits } from '../../src/store/audit.ts';
import { issueGrant } from '../../src/store/grants.ts';
import { createJob } from '../../src/store/jobs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { admin, useTestDatabase } from '../support/db.ts';

// An auditor's role may read echo-agent's schema and do nothing else (USAGE and SELECT). The reading commands answer
// for it: no command but `migrate` and the daemon changes the schema. A command that writes is refused by the
// database, and says so: not "cannot reach the database", which would send the auditor to debug the network.
const database = useTestDatabase();
// roles are the whole cluster's: one of this run's own, dropped after
const role = `echo_ro_${randomBytes(5).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'echo-read-only-'));
let env: NodeJS.ProcessEnv;
let job: JobRow;

const snapshot = async () => {
  const { pool, schema } = database();
  const count = async (table: string) => Number((await pool.query<{ n: string }>(`select count(*) as n from "${schema}".${table}`)).rows[0]!.n);
  return { ledger: await count('__drizzle_migrations'), audit: await count('audit_events'), paused: (await pool.query<{ paused: boolean }>(`select paused from "${schema}".jobs where id = $1`, [job.id])).rows[0]!.paused };
};

beforeAll(async () => {
  const { db, schema } = database();
  job = await createJob(db, {
    name: 'nightly', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: ['list_dir'], paused: false,
    payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
  });
  await issueGrant(db, { job_id: job.id, approval_id: 'apr_ro', approver: 'alice', channel: 'cli', tool_scope: ['list_dir'] });
  await appendAudits(db, [{ kind: 'gate.decision', actor: 'daemon', job_id: job.id, step: 4, outcome: 'allow', rule: 'r', reason: 'allowed' }]);
  await admin(`create role ${role} login`);
  await admin(`grant usage on schema "${schema}" to ${role}`);
  await admin(`grant select on all tables in schema "${schema}" to ${role}`);
  const config = join(dir, 'ro.yaml');
  writeFileSync(config, `database:\n  url: postgresql://${role}@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

afterAll(async () => {
  // the schema (and with it the grants on it) goes with useTestDatabase's drop, which runs after this
  await admin(`drop owned by ${role}`).catch(() => {});
  await admin(`drop role if exists ${role}`);
});

describe('a read-only role (USAGE and SELECT on the schema, nothing else)', () => {
  it('lists jobs and grants', async () => {
    const jobs = await runCli(['jobs', 'list', '--json'], { env });
    expect(jobs.code, jobs.stderr).toBe(0);
    expect((JSON.parse(jobs.stdout) as { id: string }[]).map((j) => j.id)).toEqual([job.id]);
    const grants = await runCli(['grants', 'list', '--json'], { env });
    expect(grants.code, grants.stderr).toBe(0);
    expect((JSON.parse(grants.stdout) as { job_id: string }[]).map((g) => g.job_id)).toEqual([job.id]);
  }, 60_000);

  it('lists, verifies and exports the audit log', async () => {
    const listed = await runCli(['audit', 'list', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { kind: string }[]).map((r) => r.kind)).toContain('gate.decision');
    const verified = await runCli(['audit', 'verify', '--json'], { env });
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true });
    const exported = await runCli(['audit', 'export'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string });
    expect(lines.map((l) => l.kind)).toEqual(expect.arrayContaining(['grant.issued', 'gate.decision']));
  }, 60_000);

  it('is refused a write by the database, which the command says (exit 69), and nothing changes', async () => {
    const before = await snapshot();
    const r = await runCli(['jobs', 'pause', job.id, '--as', 'auditor'], { env });
    expect(r.code, r.stderr).toBe(69);
    expect(r.stderr).toMatch(/^echo-agent: the database refused: permission denied for table \w+ \(SQLSTATE 42501; the role database\.url logs in as lacks this privilege\)\n$/);
    expect(r.stderr).not.toContain('cannot reach');
    expect(await snapshot()).toEqual(before);
  }, 60_000);
});
