import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAnswerCode } from '../../src/store/answer-code.ts';
import { createApproval } from '../../src/store/approvals.ts';
import { createJob } from '../../src/store/jobs.ts';
import { processIdentity, processStart } from '../../src/util/process-identity.ts';
import { runCli } from '../support/cli.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// "Who approved each request, from where, and who tried and failed?", from approvals list and audit list.
const database = useTestDatabase();
let env: NodeJS.ProcessEnv;
const me = `${userInfo().username}@${hostname()}`;
// the process that asked, waiting elsewhere: neither this test nor the CLI it starts is below it
const asker = spawn('sleep', ['120']);

beforeAll(() => {
  const file = join(mkdtempSync(join(tmpdir(), 'echo-audit-answers-')), 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema));
  env = { ECHO_AGENT_CONFIG: file };
});
afterAll(() => {
  asker.kill();
});

const request = (jobId: string, code: ReturnType<typeof newAnswerCode>) => createApproval(database().db, {
  call_hash: `h-${code.text}`, tool: 'cronjob', args: { action: 'update', id: jobId, timeout_seconds: 120 }, risk: 'dangerous', channel: 'cli', user_id: 'root',
  expires_at: new Date(Date.now() + 300_000), code_hash: code.hash, asked_from: { ...processIdentity(), pid: asker.pid!, started: processStart(asker.pid!)! },
});

/** The table's rows as cells, cut where the header's columns start (printTable pads every cell to its column). */
function table(stdout: string): Record<string, string>[] {
  const [header, ...rows] = stdout.trimEnd().split('\n');
  const names = [...header!.matchAll(/\S+(?: (?:BY|AT))?/g)].map((m) => ({ name: m[0], at: m.index }));
  return rows.map((row) => Object.fromEntries(names.map((c, i) => [c.name, row.slice(c.at, names[i + 1]?.at ?? undefined).trim()])));
}

describe('approvals list', () => {
  it('with nothing pending says so in words, not a bare header', async () => {
    const r = await runCli(['approvals', 'list'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('no pending approval requests: nothing waits for an answer (--all lists answered and expired ones)\n');
  });

  it('--all names who answered each request, from which account, and when', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'listed' }));
    const answered = newAnswerCode();
    const waiting = newAnswerCode();
    const done = await request(job.id, answered);
    const open = await request(job.id, waiting);
    const r = await runCli(['approvals', 'approve', done.id, '--as', 'alice'], { env, input: `${answered.text}\n` });
    expect(r.code, r.stderr).toBe(0);
    const list = await runCli(['approvals', 'list', '--all'], { env });
    expect(list.code, list.stderr).toBe(0);
    const rows = table(list.stdout.split('\n\n')[0]!);
    expect(rows.find((x) => x.ID === done.id)).toMatchObject({ STATE: 'approved', 'ANSWERED BY': `alice (${me})` });
    expect(rows.find((x) => x.ID === done.id)!['ANSWERED AT']).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    expect(rows.find((x) => x.ID === open.id)).toMatchObject({ STATE: 'pending', 'ANSWERED BY': '', 'ANSWERED AT': '' });
  });
});

describe('audit list --job for a job\'s change request', () => {
  it('shows the failed answers between the request and the answer, and says the answer came through approvals approve', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'morning-digest' }));
    const code = newAnswerCode();
    const row = await request(job.id, code);
    expect((await runCli(['approvals', 'approve', row.id, '--as', 'mallory'], { env, input: `${newAnswerCode().text}\n` })).code).toBe(1);
    expect((await runCli(['approvals', 'approve', row.id, '--as', 'mallory'], { env, input: '' })).code).toBe(1);
    expect((await runCli(['approvals', 'approve', row.id, '--as', 'bob'], { env, input: `${code.text}\n` })).code).toBe(0);

    const r = await runCli(['audit', 'list', '--job', job.id, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const records = (JSON.parse(r.stdout) as { kind: string; actor: string; outcome: string | null; data: Record<string, unknown> }[]).reverse()
      .filter((x) => x.kind.startsWith('approval.'));
    expect(records.map((x) => `${x.kind}:${x.actor}:${x.outcome ?? ''}`)).toEqual([
      'approval.requested:root:', 'approval.answer_refused:mallory:code_wrong', 'approval.answer_refused:mallory:code_missing', 'approval.answered:bob:once',
    ]);
    for (const x of records.slice(1)) expect(x.data).toMatchObject({ answered_via: 'approvals_command', from: { os_account: userInfo().username, host: hostname() } });

    const text = await runCli(['audit', 'list', '--job', job.id, '--kind', 'approval.answered'], { env });
    expect(text.stdout).toContain('answered with echo-agent approvals approve|deny, not at the asking prompt');
  });
});
