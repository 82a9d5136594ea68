import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { addAllowlist } from '../../src/store/allowlist.ts';
import { createApproval, endWait } from '../../src/store/approvals.ts';
import { listAudit } from '../../src/store/audit.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  const file = join(mkdtempSync(join(tmpdir(), 'echo-always-')), 'echo-agent.yaml');
  writeFileSync(file, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
  env = { ECHO_AGENT_CONFIG: file };
});

const LS = ['check', 'call', '--tool', 'exec', '--args', '{"command":"ls reports"}'];

describe('a person who answered "always" can see what it lets through and take it back (SPEC §5 step 9: listed and revocable)', () => {
  it('approvals always lists it, check call names it, approvals always revoke ends it, and the call asks again', async () => {
    const record = await addAllowlist(database().db, { tool: 'exec', scope: 'ls reports', created_by: 'alice', reason: '"always" answered for exec (ls reports)', approval_id: 'apr_x1' });

    const listed = await runCli(['approvals', 'always'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${record.id}\\s+exec\\s+ls reports\\s+alice`));
    expect(listed.stdout).toContain('echo-agent approvals always revoke ID');

    const covered = await runCli(LS, { env });
    expect(covered.code, covered.stderr).toBe(0);
    expect(covered.stdout).toContain(`covered by "always" approval ${record.id} made by alice; take it back with: echo-agent approvals always revoke ${record.id}`);

    const revoked = await runCli(['approvals', 'always', 'revoke', record.id, '--why', 'too broad', '--as', 'bob'], { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(`revoked ${record.id}: exec calls of ls reports ask a human again\n`);
    const [audited] = await listAudit(database().db, { kind: 'allowlist.revoked', limit: 5 });
    expect(audited).toMatchObject({ actor: 'bob', reason: 'too broad', data: { allowlist_id: record.id } });

    const asks = await runCli(LS, { env });
    expect(asks.code).toBe(2);
    expect((await runCli(['approvals', 'always', 'list', '--json'], { env })).stdout.trim()).toBe('[]');
    const all = await runCli(['approvals', 'always', 'list', '--all'], { env });
    expect(all.stdout).toContain('by bob: too broad');
  });

  it.each([
    [['approvals', 'always', 'revoke', 'alw_nope', '--why', 'gone'], 1, 'no "always" approval alw_nope'],
    // as grants revoke: an admin reading the audit log later needs the why
    [['approvals', 'always', 'revoke', 'alw_nope'], 64, '--why'],
    [['approvals', 'always', 'revoke', 'alw_nope', '--why', ' '], 64, '--why: a reason is required'],
    [['approvals', 'always', 'list', '--tool', ''], 64, '--tool: is empty'],
  ])('%j: exit %i, one line naming what is wrong', async (args, code, message) => {
    const r = await runCli(args, { env });
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('revoking one twice says when and by whom it was revoked', async () => {
    const record = await addAllowlist(database().db, { tool: 'exec', scope: 'du', created_by: 'alice', reason: 'r', approval_id: 'apr_x2' });
    expect((await runCli(['approvals', 'always', 'revoke', record.id, '--why', 'unused'], { env })).code).toBe(0);
    const again = await runCli(['approvals', 'always', 'revoke', record.id, '--why', 'unused'], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`${record.id}: already revoked at \\S+ by `));
  });
});

describe('check call tells a person what a flag is about', () => {
  it('each guard finding is printed with its reason', async () => {
    const r = await runCli(['check', 'call', '--no-store', '--tool', 'exec', '--args', '{"command":"rm -r ./build"}'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/flagged: shell\.rm\.recursive \(ask\) rm -r \.\/build: \S.+/);
  });
});

describe('approvals approve --always from another terminal says what it did', () => {
  const pending = (over: Partial<Parameters<typeof createApproval>[1]> = {}) => createApproval(database().db, {
    call_hash: 'h', tool: 'exec', args: { command: 'ls logs' }, risk: 'exec', scopes: ['ls logs'], allow_always: true,
    channel: 'cli', user_id: 'alice', expires_at: new Date(Date.now() + 60_000), ...over,
  });

  it('the answer is shown as recorded, not as an offer still open', async () => {
    const row = await pending();
    const r = await runCli(['approvals', 'approve', row.id, '--always', '--as', 'alice'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('answered "always": once the waiting session takes the answer, this runs without asking: every exec command that starts `ls logs`, whatever follows and whatever the files it runs then hold');
    expect(r.stdout).not.toContain('--always would also allow');
  });

  it('a request that offers no "always" says why', async () => {
    const row = await pending({ args: { command: 'bash -c "echo hi"' }, scopes: [], allow_always: false, flags: [{ rule: 'shell.interpreter.inline', severity: 'ask', matched: 'bash -c', reason: 'inline code' }] });
    const r = await runCli(['approvals', 'show', row.id], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('--always is not offered for this call: a call the guard flagged is asked every time');
  });

  it('--always on a request that offers none says why, and how to allow the one call', async () => {
    const row = await pending({ args: { command: 'bash -c "echo hi"' }, scopes: [], allow_always: false, flags: [{ rule: 'shell.interpreter.inline', severity: 'ask', matched: 'bash -c', reason: 'inline code' }] });
    const r = await runCli(['approvals', 'approve', row.id, '--always'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`echo-agent: ${row.id}: "always" is not offered for this call: a call the guard flagged is asked every time; approve without --always to allow this one call.\n`);
  });

  it('an answer to a request its session withdrew says it was withdrawn, not that it expired', async () => {
    const row = await pending();
    await endWait(database().db, row.id, 'withdrawn'); // what Ctrl-C in the asking session does
    const r = await runCli(['approvals', 'approve', row.id], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${row.id}: The request was withdrawn: the session that asked stopped waiting`);
  });
});
