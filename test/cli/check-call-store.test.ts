import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addAllowlist } from '../../src/store/allowlist.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

function configFile(extra = ''): string {
  const file = join(mkdtempSync(join(tmpdir(), 'echo-check-call-')), 'echo-agent.yaml');
  writeFileSync(file, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n${extra}`);
  return file;
}
const gitStatus = ['check', 'call', '--tool', 'exec', '--args', '{"command":"git status"}', '--channel', 'telegram', '--json'];

describe('check call and the stored decisions it depends on', () => {
  it('a persistent approval in the database allows at step 9, as the real gate would', async () => {
    await addAllowlist(database().db, { tool: 'exec', scope: 'git status', created_by: 'alice', reason: '"always" for git status', approval_id: 'apr_check' });
    const env = { ECHO_AGENT_CONFIG: configFile() };
    const r = await runCli(gitStatus, { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'allow', step: 9 });
    // --no-store judges without it, and so would ask
    const offline = await runCli([...gitStatus, '--no-store'], { env });
    expect(JSON.parse(offline.stdout)).toMatchObject({ outcome: 'would_ask', step: 11 });
  });

  it('with no database running it says step 9 was not looked up instead of passing that over silently', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-check-nodb-'));
    const r = await runCli(gitStatus, { cwd: dir, env: { ECHO_AGENT_CONFIG: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/note: step 9: no database is running/);
    // and it starts none
    expect(existsSync(join(dir, 'data', 'pg'))).toBe(false);
  });

  it("embedded database files it may not read give a note on step 9, not a crash", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-check-unreadable-'));
    // a directory where the pid file should be: unreadable as a file, whoever runs the test (root reads any file)
    mkdirSync(join(dir, 'data', 'pg', 'postmaster.pid'), { recursive: true });
    const r = await runCli(gitStatus, { cwd: dir, env: { ECHO_AGENT_CONFIG: '' } });
    expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'would_ask', step: 11 });
    expect(r.stderr).toMatch(/note: step 9: the embedded database's files in .*data could not be read \(EISDIR\)/);
  });

  it('a smart model without an endpoint is no step 10, as at runtime: the call goes to a human', async () => {
    const env = { ECHO_AGENT_CONFIG: configFile('permissions:\n  approval:\n    mode: smart\n    smart_model: reviewer\n') };
    const r = await runCli([...gitStatus, '--no-store'], { env });
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'would_ask', step: 11, rule: 'approval.would_ask' });
    const withEndpoint = { ECHO_AGENT_CONFIG: configFile('model:\n  base_url: http://127.0.0.1:9/v1\npermissions:\n  approval:\n    mode: smart\n    smart_model: reviewer\n') };
    const smart = await runCli([...gitStatus, '--no-store'], { env: withEndpoint });
    expect(JSON.parse(smart.stdout)).toMatchObject({ outcome: 'would_ask', step: 10, rule: 'approval.would_ask_smart' });
  });

  it('a trusted channel lets exec through unasked, but not a download aimed at the metadata service', async () => {
    const env = { ECHO_AGENT_CONFIG: configFile('permissions:\n  approval:\n    trusted_channels: [telegram]\n') };
    const call = (command: string) => runCli(['check', 'call', '--tool', 'exec', '--args', JSON.stringify({ command }), '--channel', 'telegram', '--no-store', '--json'], { env });
    expect(JSON.parse((await call('curl -s https://example.com/')).stdout)).toMatchObject({ outcome: 'allow', step: 8 });
    const metadata = await call('curl -s http://169.254.169.254/latest/meta-data/iam/security-credentials/');
    expect(metadata.code).toBe(2);
    expect(JSON.parse(metadata.stdout)).toMatchObject({ outcome: 'would_ask', step: 11, flagged: [{ rule: 'shell.network.private_target' }] });
  });
});
