import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

describe('echo-agent check call', () => {
  it('denies an unattended cronjob at step 4 with a rule id, even with --cron-authorized (I1)', async () => {
    const r = await runCli(['check', 'call', '--tool', 'cronjob', '--args', '{}', '--unattended', '--cron-authorized', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.dangerous', risk: 'dangerous' });
  });

  it('says a call would go to a human instead of asking (exit 2)', async () => {
    const r = await runCli(['check', 'call', '--tool', 'exec', '--args', '{"command":"ls"}', '--channel', 'telegram', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'would_ask', step: 11, rule: 'approval.would_ask' });
  });

  it('allows a read_only call (exit 0) with approval_source auto', async () => {
    const r = await runCli(['check', 'call', '--tool', 'read_file', '--args', '{"path":"README.md"}', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'allow', step: 5, approval_source: 'auto' });
  });

  it('refuses exec for an unattended call under the daemon profile floor (I4)', async () => {
    const r = await runCli(['check', 'call', '--tool', 'exec', '--args', '{"command":"ls"}', '--unattended', '--cron-authorized', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ step: 0, rule: 'security.daemon.capability' });
  });

  it('refuses a hard-blocked command at step 1', async () => {
    const r = await runCli(['check', 'call', '--tool', 'exec', '--args', '{"command":"rm -rf /"}', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'deny', step: 1 });
  });

  it('refuses a nested call that would need a human at step 11', async () => {
    const r = await runCli(['check', 'call', '--tool', 'exec', '--args', '{"command":"ls"}', '--nested', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.nested' });
  });

  it.each([
    [['--args', 'not json'], '--args: not valid JSON'],
    [['--args', '[1]'], '--args: expected a JSON object'],
    [['--cron-authorized'], '--cron-authorized only applies to --unattended'],
  ])('rejects bad input %j with a clear message and exit 64', async (extra, message) => {
    const r = await runCli(['check', 'call', '--tool', 'exec', ...extra]);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('echo-agent tools list', () => {
  it('under --security daemon shows no exec/execute_code/process/skill_install and names the rule', async () => {
    const r = await runCli(['tools', 'list', '--security', 'daemon', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { offered: { name: string }[]; removed: { name: string; rule: string }[] };
    const offered = out.offered.map((t) => t.name);
    for (const name of ['exec', 'execute_code', 'process', 'skill_install']) {
      expect(offered).not.toContain(name);
      expect(out.removed.find((t) => t.name === name)?.rule).toBe('security.daemon.capability');
    }
    const text = await runCli(['tools', 'list', '--security', 'daemon']);
    expect(text.stdout).toMatch(/exec\s+exec\s+security\.daemon\.capability/);
  });

  it('rejects an unknown profile with exit 64', async () => {
    const r = await runCli(['tools', 'list', '--profile', 'everything']);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('everything');
  });

  it('has --help on every command', async () => {
    for (const args of [['--help'], ['check', 'call', '--help'], ['tools', 'list', '--help'], ['jobs', 'create', '--help'], ['grants', 'show', '--help'], ['audit', 'verify', '--help']]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toContain('Usage:');
    }
  });
});
