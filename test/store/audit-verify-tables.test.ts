import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerApproval, createApproval } from '../../src/store/approvals.ts';
import { appendAudits } from '../../src/store/audit.ts';
import { issueGrant, revokeGrant } from '../../src/store/grants.ts';
import { createJob } from '../../src/store/jobs.ts';
import { runCli } from '../support/cli.ts';
import { tamper, useTestDatabase } from '../support/db.ts';
import { aJob } from './fixtures.ts';

// `audit verify` checks the chain; a job_grants or approvals row changed with plain SQL leaves the chain intact,
// so the rows are checked against their records too: a finding of its own kind, exit 1, the chain still ok.
// The tests share one schema and build on each other, in order.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-verify-tables-'));
let env: NodeJS.ProcessEnv;

interface Finding { rule: string; table: string; id: string; fields: string[]; record_seq: number | null; detail: string }
interface Verdict { ok: boolean; first_bad?: unknown; note?: string; tables: { ok: boolean; checked: { job_grants: number; approvals: number }; archived: { job_grants: number; approvals: number }; findings: Finding[] } | null }

beforeAll(() => {
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

async function verify(): Promise<{ code: number | null; text: string; json: Verdict }> {
  const [t, j] = await Promise.all([runCli(['audit', 'verify'], { env }), runCli(['audit', 'verify', '--json'], { env })]);
  expect(j.code).toBe(t.code);
  return { code: t.code, text: t.stdout, json: JSON.parse(j.stdout) as Verdict };
}

/** A request answered through answerApproval, as a person's answer is: row and approval.answered record agree. */
async function answered(answer: 'once' | 'deny', by: string) {
  const db = database().db;
  const row = await createApproval(db, { call_hash: `h-${by}-${answer}`, tool: 'exec', args: { command: 'ls' }, risk: 'dangerous', channel: 'cli', user_id: 'root', expires_at: new Date(Date.now() + 300_000) });
  expect(await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer, answered_by: by, origin: { os_account: by, host: 'box' } })).toMatchObject({ ok: true });
  return row.id;
}

describe('audit verify: job_grants and approvals rows against their records', () => {
  it('rows written by echo-agent match: ok, exit 0, and says how many rows it checked', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'old-job' }));
    await issueGrant(db, { job_id: job.id, approval_id: 'apr_old', approver: 'erin', channel: 'cli' });
    await answered('once', 'erin');
    await revokeGrant(db, { job_id: job.id, by: 'frank', why: 'incident 1' });
    const v = await verify();
    expect(v.code, v.text).toBe(0);
    expect(v.json).toMatchObject({ ok: true, tables: { ok: true, checked: { job_grants: 1, approvals: 1 }, findings: [] } });
    expect(v.text).toMatch(/^audit chain ok: .*\ntables vs chain ok: 1 job_grants and 1 approvals rows match their audit records\n$/);
  });

  it('rows whose records were archived are not findings: counted as not checked', async () => {
    // one record after them, so the archive (which keeps the newest record) takes all of theirs
    await appendAudits(database().db, [{ kind: 'test.after' }]);
    const archived = await runCli(['audit', 'archive', '--before', new Date(Date.now() + 60_000).toISOString(), '--out', join(dir, 'a.jsonl'), '--as', 'dana'], { env });
    expect(archived.code, archived.stderr).toBe(0);
    const v = await verify();
    expect(v.code, v.text).toBe(0);
    expect(v.json.tables).toMatchObject({ ok: true, checked: { job_grants: 0, approvals: 0 }, archived: { job_grants: 1, approvals: 1 } });
    expect(v.text).toContain('not checked: 1 job_grants and 1 approvals rows whose records are archived (cannot check: archived)');
  });

  it('names each row changed with SQL, its rule, fields and record; exit 1 while the chain itself is intact', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'renamed' }));
    const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_erin', approver: 'erin', channel: 'cli' });
    const other = await createJob(db, aJob({ name: 'revoked' }));
    const revoked = await issueGrant(db, { job_id: other.id, approval_id: 'apr_gina', approver: 'gina', channel: 'cli' });
    await revokeGrant(db, { job_id: other.id, by: 'frank', why: 'incident 2' });
    const pending = await createApproval(db, { call_hash: 'h-pending', tool: 'exec', args: { command: 'rm -rf /tmp/x' }, risk: 'dangerous', channel: 'cli', user_id: 'root', expires_at: new Date(Date.now() + 300_000) });
    const denied = await answered('deny', 'ivan');
    await tamper(database(),
      `update job_grants set approver = 'zed' where id = '${grant.id}'`,
      `update job_grants set revoked_at = null, revoked_by = null, revoked_why = null where id = '${revoked.id}'`,
      `update approvals set state = 'approved', answer = 'once', answered_by = 'mallory', answered_at = now() where id = '${pending.id}'`,
      `update approvals set state = 'approved', answer = 'once' where id = '${denied}'`,
      // an old grant made up after the fact (ended, so the job's live grant stays the only one)
      `insert into job_grants (id, job_id, cron_authorized, approval_id, approver, channel, approved_at, definition_hash, revoked_at, revoked_by, revoked_why) values ('grt_forged', '${job.id}', false, 'apr_x', 'mallory', 'cli', now(), 'x', now(), 'mallory', 'x')`,
    );
    const v = await verify();
    expect(v.code).toBe(1);
    expect(v.json.ok).toBe(false);
    expect(v.json).not.toHaveProperty('first_bad');
    const by = (id: string) => v.json.tables!.findings.filter((f) => f.id === id);
    const issuedSeq = (await runCli(['audit', 'list', '--job', job.id, '--kind', 'grant.issued', '--json'], { env })).stdout;
    expect(by(grant.id)).toEqual([expect.objectContaining({ rule: 'tables.grant.differs', table: 'job_grants', fields: ['approver'], record_seq: (JSON.parse(issuedSeq) as { seq: number }[])[0]!.seq })]);
    expect(by(revoked.id)).toEqual([expect.objectContaining({ rule: 'tables.grant.ending_differs', fields: ['revoked_at'] })]);
    expect(by('grt_forged')).toEqual([expect.objectContaining({ rule: 'tables.grant.no_record', record_seq: null }), expect.objectContaining({ rule: 'tables.grant.ending_differs', fields: ['revoked_at'] })]);
    expect(by(pending.id)).toEqual([expect.objectContaining({ rule: 'tables.approval.no_record', table: 'approvals' })]);
    expect(by(denied)).toEqual([expect.objectContaining({ rule: 'tables.approval.differs', fields: ['state', 'answer'] })]);
    expect(v.json.tables!.findings).toHaveLength(6);
    // the text: the chain is ok, the tables are not, each row on a line with its rule and fields
    expect(v.text).toMatch(/^audit chain ok: /);
    expect(v.text).toContain('tables vs chain: 6 finding(s): rows DIFFER from the audit records (changed outside echo-agent; the chain itself is intact)');
    expect(v.text).toContain(`  tables.grant.differs job_grants ${grant.id} [approver]: job_grants row ${grant.id} (job ${job.id}) differs from its grant.issued record`);
    expect(v.text).toContain('approver (row "zed", record "erin")');
    expect(v.text).toContain(`  tables.approval.no_record approvals ${pending.id}: approvals row ${pending.id} is approved (once by mallory), but no approval.answered record says so`);
  });

  it('--file checks the records alone, and says the tables are checked only in the database', async () => {
    const file = join(dir, 'export.jsonl');
    const exported = await runCli(['audit', 'export'], { env });
    writeFileSync(file, exported.stdout);
    const after = /--after (\S+)/.exec(exported.stderr)![1]!;
    const r = await runCli(['audit', 'verify', '--file', file, '--after', after, '--json'], { env });
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, tables: null, note: expect.stringContaining('checked against the chain by audit verify without --file') });
  });
});
