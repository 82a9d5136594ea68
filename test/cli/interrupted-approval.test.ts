import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listApprovals } from '../../src/store/approvals.ts';
import { listAudit } from '../../src/store/audit.ts';
import { listJobs } from '../../src/store/jobs.ts';
import { BIN, ROOT, runCli, waitingApproval } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

function env(): NodeJS.ProcessEnv {
  const file = join(mkdtempSync(join(tmpdir(), 'echo-interrupted-')), 'echo-agent.yaml');
  writeFileSync(file, [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    'permissions:', '  approval:', '    wait_timeout_seconds: 120', '',
  ].join('\n'));
  return { ECHO_AGENT_CONFIG: file };
}

/** `jobs create` with no terminal, once its request waits in the database for `approvals approve`. */
async function waitingCreate(e: NodeJS.ProcessEnv, name: string) {
  const child = spawn(process.execPath, [BIN, 'jobs', 'create', '--name', name, '--schedule', '0 3 * * *', '--prompt', 'report'], {
    cwd: ROOT, env: { ...process.env, ...e }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  const out = { child, id: '', code: '', stderr: '', exited: new Promise<number | null>((resolve) => child.on('close', resolve)) };
  ({ id: out.id, code: out.code } = await new Promise<{ id: string; code: string }>((resolve) => child.stderr.on('data', (d) => {
    out.stderr += d;
    const w = waitingApproval(out.stderr);
    if (w) resolve(w);
  })));
  return out;
}

describe('a jobs create waiting for an approval, interrupted', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('%s withdraws the request and records the refusal; nobody can approve it afterwards', async (signal) => {
    const e = env();
    const name = `nightly-${signal.toLowerCase()}`;
    const w = await waitingCreate(e, name);
    const { id, code } = w;
    w.child.kill(signal);
    expect(await w.exited, w.stderr).toBe({ SIGHUP: 129, SIGINT: 130, SIGTERM: 143 }[signal]);

    const [row] = (await listApprovals(database().db, { limit: 100 })).filter((a) => a.id === id);
    expect(row?.state).toBe('withdrawn');
    const decisions = await listAudit(database().db, { kind: 'gate.decision', limit: 50 });
    expect(decisions.find((d) => (d.data as { approval_id?: string } | null)?.approval_id === id))
      .toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.human.cancelled' });
    // a person with the code, too late
    const late = await runCli(['approvals', 'approve', id], { env: e, input: `${code}\n` });
    expect(late.code).toBe(1);
    expect((await listJobs(database().db)).map((j) => j.name)).not.toContain(name);
  }, 60_000);

  it('killed outright (SIGKILL, nothing withdrawn), its request cannot be approved: the answer is refused and the request withdrawn', async () => {
    const e = env();
    const name = 'nightly-killed';
    const { child, id, code, exited } = await waitingCreate(e, name);
    child.kill('SIGKILL');
    await exited;
    const late = await runCli(['approvals', 'approve', id], { env: e, input: `${code}\n` });
    expect(late.code).toBe(1);
    expect(late.stderr).toContain(`${id}: The process that asked has ended`);
    const [row] = (await listApprovals(database().db, { limit: 100 })).filter((a) => a.id === id);
    expect(row?.state).toBe('withdrawn');
    expect((await listAudit(database().db, { kind: 'approval.answer_refused', limit: 10 }))[0]).toMatchObject({ outcome: 'asker_gone' });
    const list = await runCli(['approvals', 'list', '--all'], { env: e });
    expect(list.stdout).toMatch(new RegExp(`${id}.*withdrawn`));
    expect((await listJobs(database().db)).map((j) => j.name)).not.toContain(name);
  }, 60_000);

  it('an answer to a request already answered says how, by whom and when', async () => {
    const e = env();
    const w = await waitingCreate(e, 'nightly-twice');
    const { id, code } = w;
    // the hint names the config this command read: another shell may lack its ECHO_AGENT_CONFIG
    const cli = `echo-agent --config ${e.ECHO_AGENT_CONFIG} approvals`;
    expect(w.stderr).toContain(`run  ${cli} show ${id}  to see all of it, then  ${cli} approve ${id}  or  ${cli} deny ${id}\n  and give it this code when asked: ${code}\n`);
    expect((await runCli(['approvals', 'deny', id, '--as', 'erin'], { env: e, input: `${code}\n` })).code).toBe(0);
    expect(await w.exited).toBe(1);
    // the refusal as a person reads it: the advice meant for a model (never retry) is left out
    expect(w.stderr).toContain('echo-agent: A human refused this call (refused by erin); nothing was created\n');
    expect(w.stderr).not.toContain('Do not retry');
    const again = await runCli(['approvals', 'approve', id], { env: e });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`${id}: The request was already answered: denied by erin from \\S+@\\S+ at \\d{4}-`));
  }, 60_000);
});
