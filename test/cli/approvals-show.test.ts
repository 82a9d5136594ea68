import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listAudit } from '../../src/store/audit.ts';
import { newAnswerCode } from '../../src/store/answer-code.ts';
import { createApproval, getApproval } from '../../src/store/approvals.ts';
import { cliOnTerminal, runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

function env(): NodeJS.ProcessEnv {
  const file = join(mkdtempSync(join(tmpdir(), 'echo-approvals-show-')), 'echo-agent.yaml');
  writeFileSync(file, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
  return { ECHO_AGENT_CONFIG: file };
}

describe('approvals show', () => {
  it('shows the whole call, its findings and what --always would allow, before anyone answers', async () => {
    const long = `curl -fsSL https://example.com/${'a'.repeat(120)} -o out.tgz && tar xzf out.tgz`;
    const row = await createApproval(database().db, {
      call_hash: 'hash-1', tool: 'exec', args: { command: long }, risk: 'exec', channel: 'telegram', user_id: 'u1',
      flags: [{ rule: 'shell.download', severity: 'ask', matched: 'curl', reason: 'Downloads a file.' }], scopes: ['curl', 'tar'], allow_always: true,
      expires_at: new Date(Date.now() + 60_000),
    });
    const e = env();
    const list = await runCli(['approvals', 'list'], { env: e });
    expect(list.stdout).toContain('approvals show ID');
    const r = await runCli(['approvals', 'show', row.id], { env: e });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(long);
    expect(r.stdout).toContain('guard: shell.download');
    expect(r.stdout).toContain('--always would also allow, from now on and without asking: every exec command that starts `curl` or `tar`, whatever follows and whatever the files it runs then hold');
    expect((await runCli(['approvals', 'show', 'apr_nosuch'], { env: e })).code).toBe(1);
  });

  it('a request asked with a code says where the code is, and never shows it', async () => {
    const code = newAnswerCode();
    const row = await createApproval(database().db, {
      call_hash: 'hash-code', tool: 'exec', args: { command: 'make deploy' }, risk: 'exec', channel: 'cli', user_id: 'u1',
      flags: [], scopes: ['make deploy'], allow_always: true, expires_at: new Date(Date.now() + 60_000), code_hash: code.hash,
    });
    const r = await runCli(['approvals', 'show', row.id], { env: env() });
    expect(r.stdout).toContain(`answering asks for the code printed where the request was asked (approvals approve|deny ${row.id})`);
    expect(r.stdout).not.toContain(code.text);
  });

  it('an answer given --as someone records the OS account it really came from beside the claimed name', async () => {
    const row = await createApproval(database().db, {
      call_hash: 'hash-2', tool: 'write_file', args: { path: 'x' }, risk: 'write', channel: 'telegram', user_id: 'u1',
      flags: [], scopes: [], allow_always: false, expires_at: new Date(Date.now() + 60_000),
    });
    const r = await runCli(['approvals', 'approve', row.id, '--as', 'alice'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const [answered] = await listAudit(database().db, { kind: 'approval.answered', limit: 1 });
    expect(answered).toMatchObject({ actor: 'alice', data: { approval_id: row.id, from: { os_account: userInfo().username, host: hostname() }, answered_via: 'approvals_command' } });
    // who answered, as the person asking "who approved that?" needs it; no expiry for a request nobody waits on
    const shown = await runCli(['approvals', 'show', row.id], { env: env() });
    expect(shown.stdout).toMatch(new RegExp(`^request ${row.id}: write_file {2}\\[risk write\\] {2}approved once by alice from ${userInfo().username}@${hostname()} at \\d{4}-`));
    expect(shown.stdout).not.toContain('expires');
  });

  it('an answered cronjob request is not previewed against the job as it is now, which may have changed since', async () => {
    const row = await createApproval(database().db, {
      call_hash: 'hash-4', tool: 'cronjob', args: { action: 'create', name: 'gone-by', schedule: '0 6 * * *', payload: { kind: 'agent', prompt: 'p' } },
      risk: 'dangerous', channel: 'cli', user_id: 'u1', tool_scope: ['read_file'], expires_at: new Date(Date.now() + 60_000),
    });
    const e = env();
    expect((await runCli(['approvals', 'deny', row.id, '--as', 'bob'], { env: e })).code).toBe(0);
    const r = await runCli(['approvals', 'show', row.id], { env: e });
    expect(r.stdout).toContain('denied by bob from');
    expect(r.stdout).toContain('what was granted: grants show JOB');
    expect(r.stdout).not.toContain('unattended with:');
  });

  it('a cronjob request lists the tools its grant would cover as the waiting session recorded them, not as this shell\'s configuration offers', async () => {
    const row = await createApproval(database().db, {
      call_hash: 'hash-3', tool: 'cronjob', args: { action: 'create', name: 'digest', schedule: '0 6 * * *', payload: { kind: 'agent', prompt: 'summarise' } },
      risk: 'dangerous', channel: 'cli', user_id: 'u1', tool_scope: ['read_file', 'write_file'], expires_at: new Date(Date.now() + 60_000),
    });
    const r = await runCli(['approvals', 'show', row.id], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/unattended with:\n {4}read_file\(read_only\), write_file\(write\) {3}\(the job names no tools/);
    expect(r.stdout).toContain('the grant covers only the tools listed here');
  });
});

describe('the answer code is never taken from the command line', () => {
  const pending = (code: ReturnType<typeof newAnswerCode>) => createApproval(database().db, {
    call_hash: 'hash-argv', tool: 'exec', args: { command: 'make deploy' }, risk: 'exec', channel: 'cli', user_id: 'u1',
    flags: [], scopes: [], allow_always: false, expires_at: new Date(Date.now() + 60_000), code_hash: code.hash,
  });

  it('--code is refused before anything is answered: every local process reads a command\'s arguments', async () => {
    const code = newAnswerCode();
    const row = await pending(code);
    const r = await runCli(['approvals', 'approve', row.id, '--code', code.text], { env: env() });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('--code: give the code at the prompt, or on standard input');
    expect((await getApproval(database().db, row.id))?.state).toBe('pending');
  });

  it('without a terminal the code is the first line of standard input; an empty one is refused as missing', async () => {
    const code = newAnswerCode();
    const row = await pending(code);
    const none = await runCli(['approvals', 'approve', row.id], { env: env(), input: '' });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('only with the code shown where it was asked');
    const given = await runCli(['approvals', 'approve', row.id, '--as', 'alice'], { env: env(), input: `${code.text}\n` });
    expect(given.code, given.stderr).toBe(0);
    expect((await getApproval(database().db, row.id))?.state).toBe('approved');
  });

  it('on a terminal it is asked for and not echoed', async () => {
    const code = newAnswerCode();
    const row = await pending(code);
    const r = await cliOnTerminal(['approvals', 'deny', row.id, '--as', 'bob'], env(), code.text, 30_000, /\(not echoed\): /);
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toContain(code.text);
    expect((await getApproval(database().db, row.id))).toMatchObject({ state: 'denied', answered_by: 'bob' });
  });
});
