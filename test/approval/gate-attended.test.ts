import { describe, expect, it } from 'vitest';
import { buildContext, nestedContext } from '../../src/tools/context.ts';
import { ASK, HARD, harness, RecordingReviewer } from '../support/gate-harness.ts';

const attended = (over: Parameters<typeof buildContext>[0] = {}) => buildContext({ channel: 'telegram', user_id: 'u1', ...over });
const exec = (command = 'ls -la') => ({ tool: 'exec', args: { command } });

describe('step 0: availability (I10)', () => {
  it('refuses an unknown tool', async () => {
    expect(await harness().gate.check({ tool: 'nope', args: {} }, attended())).toMatchObject({ outcome: 'deny', step: 0, rule: 'tools.unknown' });
  });
  it('refuses a tool the profile removed, even though it was called', async () => {
    const h = harness({ tools: { profile: 'minimal' } });
    expect(await h.gate.check(exec(), attended())).toMatchObject({ outcome: 'deny', step: 0, rule: 'tools.profile' });
  });
  it('refuses exec under the daemon security profile', async () => {
    const h = harness({}, { security: 'daemon' });
    expect(await h.gate.check(exec(), attended())).toMatchObject({ outcome: 'deny', step: 0, rule: 'security.daemon.capability' });
  });
  it('refuses a reserved name as unavailable', async () => {
    expect(await harness().gate.check({ tool: 'agents_route', args: {} }, attended())).toMatchObject({ outcome: 'deny', step: 0, rule: 'tools.reserved' });
  });
  it('refuses a tool that is not ready and says what it lacks', async () => {
    const d = await harness().gate.check({ tool: 'notify', args: { target: 'ops', text: 'hi' } }, attended());
    expect(d).toMatchObject({ outcome: 'deny', step: 0, rule: 'tools.not_ready' });
    expect(d.reason).toContain('notify.targets');
  });
});

describe('step 1: static guard', () => {
  it('refuses a hard block and nothing overrides it (I9)', async () => {
    const h = harness({ permissions: { approval: { mode: 'off', auto_approve: ['exec'], cli_auto_approve: true, trusted_channels: ['telegram'] } } });
    h.guard.findings = [HARD];
    for (const ctx of [attended(), attended({ channel: 'cli' }), attended({ unattended: true, cron_authorized: true })]) {
      const d = await h.gate.check(exec('rm -rf /'), ctx);
      expect(d).toMatchObject({ outcome: 'deny', step: 1, rule: HARD.rule });
      expect(d.reason).toContain('rm -rf /');
      // the audit record shows what the guard found
      expect(d.flagged).toEqual([HARD]);
    }
    expect(h.approver.asked).toHaveLength(0);
  });

  it('flags a soft block, which skips every standing policy and goes to a human', async () => {
    const h = harness({ permissions: { approval: { auto_approve: ['exec'], cli_auto_approve: true, trusted_channels: ['cli'] } } });
    h.guard.findings = [ASK];
    const d = await h.gate.check(exec('rm -r build'), attended({ channel: 'cli' }));
    expect(d).toMatchObject({ outcome: 'allow', step: 11, approval_source: 'human' });
    expect(d.flagged).toEqual([ASK]);
    expect(h.approver.asked[0]?.flags).toEqual([ASK]);
  });

  it('sends a flagged write_file to a human instead of step 5', async () => {
    const h = harness();
    h.guard.findings = [ASK];
    expect((await h.gate.check({ tool: 'write_file', args: { path: '.env', content: '' } }, attended())).step).toBe(11);
  });
});

describe('step 2: elevation', () => {
  const local = { tools: { exec: { host: 'local' as const } } };
  it('refuses exec on a local host from a sender that is not elevated', async () => {
    const h = harness({ ...local, permissions: { elevated: { enabled: true, allow_from: { telegram: ['someone_else'] } } } });
    expect(await h.gate.check(exec(), attended())).toMatchObject({ outcome: 'deny', step: 2, rule: 'elevation.required' });
  });
  it.each([
    [{ elevated: { enabled: true, allow_from: { telegram: ['u1'] } } }],
    [{ elevated: { enabled: true, allow_from: { '*': ['u1'] } } }],
    [{ elevated: { enabled: true, allow_from: { telegram: ['*'] } } }],
    [{ admin_users: ['u1'] }],
  ])('lets an elevated sender through to the later steps: %j', async (permissions) => {
    const h = harness({ ...local, permissions });
    expect((await h.gate.check(exec(), attended())).step).toBeGreaterThan(2);
  });
  it('does not need elevation for exec in the sandbox with allowlist security', async () => {
    expect((await harness().gate.check(exec(), attended())).step).toBeGreaterThan(2);
  });
  it('does not apply to tools other than exec, execute_code and process', async () => {
    const h = harness({ tools: { exec: { host: 'local', security: 'full' } } });
    expect(await h.gate.check({ tool: 'write_file', args: { path: 'a', content: '' } }, attended())).toMatchObject({ outcome: 'allow', step: 5 });
  });
});

describe('steps 5–10 in smart mode', () => {
  it('step 5 allows read_only and write calls when attended', async () => {
    const h = harness();
    expect(await h.gate.check({ tool: 'read_file', args: { path: 'a' } }, attended())).toMatchObject({ outcome: 'allow', step: 5, approval_source: 'auto' });
    expect(await h.gate.check({ tool: 'memory', args: { action: 'list' } }, attended())).toMatchObject({ outcome: 'allow', step: 5 });
  });
  it('step 6 auto_approve allows exec but never a dangerous tool', async () => {
    const h = harness({ permissions: { approval: { auto_approve: ['exec', 'cronjob'] } } });
    expect(await h.gate.check(exec(), attended())).toMatchObject({ outcome: 'allow', step: 6, rule: 'approval.auto_approve' });
    expect((await h.gate.check({ tool: 'cronjob', args: { action: 'list' } }, attended())).step).toBe(11);
  });
  it('step 7 cli_auto_approve needs channel cli, attended, not nested, not dangerous', async () => {
    const h = harness({ permissions: { approval: { cli_auto_approve: true } } });
    expect(await h.gate.check(exec(), attended({ channel: 'cli' }))).toMatchObject({ outcome: 'allow', step: 7 });
    expect((await h.gate.check(exec(), attended({ channel: 'telegram' }))).step).toBe(11);
    expect(await h.gate.check(exec(), nestedContext(attended({ channel: 'cli' })))).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.nested' });
    expect((await h.gate.check({ tool: 'cronjob', args: { action: 'list' } }, attended({ channel: 'cli' }))).step).toBe(11);
  });
  it('step 8 trusted channel allows EXEC but a DANGEROUS call still needs a human', async () => {
    const h = harness({ permissions: { approval: { trusted_channels: ['telegram'] } } });
    expect(await h.gate.check(exec(), attended())).toMatchObject({ outcome: 'allow', step: 8, rule: 'approval.trusted_channel' });
    const d = await h.gate.check({ tool: 'skill_manage', args: { action: 'remove', name: 'x' } }, attended());
    expect(d).toMatchObject({ step: 11, approval_source: 'human' });
  });
  it('step 9 matches a persistent record on the program and sub-command of every command', async () => {
    const h = harness();
    await h.allowlist.add({ tool: 'exec', scope: 'git status', created_by: 'alice', reason: 'r' });
    h.guard.commands = [{ program: 'git', subcommand: 'status' }];
    expect(await h.gate.check(exec('git status'), attended())).toMatchObject({ outcome: 'allow', step: 9, approver: 'alice', approval_source: 'auto' });
    h.guard.commands = [{ program: 'git', subcommand: 'status' }, { program: 'curl' }];
    expect((await h.gate.check(exec('git status; curl x'), attended())).step).toBe(11);
    h.guard.commands = [];
    expect((await h.gate.check(exec('$(x)'), attended())).step).toBe(11);
  });
  it.each([
    ['APPROVE', 'allow', 10, 'approval.smart.approve'],
    ['DENY', 'deny', 10, 'approval.smart.deny'],
    ['ESCALATE', 'allow', 11, 'approval.human.once'],
    ['garbage', 'allow', 11, 'approval.human.once'],
    ['throw', 'allow', 11, 'approval.human.once'],
    ['hang', 'allow', 11, 'approval.human.once'],
  ] as const)('step 10 smart reviewer %s -> %s at step %i', async (verdict, outcome, step, rule) => {
    const h = harness({}, { reviewer: new RecordingReviewer(verdict) });
    expect(await h.gate.check(exec(), attended())).toMatchObject({ outcome, step, rule });
    expect(h.reviewer.calls).toBe(1);
  });
  it('step 10 never reviews a dangerous call', async () => {
    const h = harness({}, { reviewer: new RecordingReviewer('APPROVE') });
    expect((await h.gate.check({ tool: 'cronjob', args: { action: 'list' } }, attended())).step).toBe(11);
    expect(h.reviewer.calls).toBe(0);
  });
});

describe('step 11: the human', () => {
  it('once: allowed with approval_source human, bound to the request', async () => {
    const h = harness();
    const d = await h.gate.check(exec(), attended());
    expect(d).toMatchObject({ outcome: 'allow', step: 11, rule: 'approval.human.once', approval_source: 'human', approver: 'alice' });
    expect(d.approval_id).toBe(h.approver.asked[0]?.request_id);
    expect(h.approver.asked[0]?.call_hash).toBe(d.call_hash);
  });
  it('always: records a persistent approval for a non-dangerous call', async () => {
    const h = harness();
    h.approver.answer = 'always';
    h.guard.commands = [{ program: 'npm', subcommand: 'test' }];
    expect(await h.gate.check(exec('npm test'), attended())).toMatchObject({ rule: 'approval.human.always', approval_source: 'human' });
    expect(h.allowlist.records).toMatchObject([{ tool: 'exec', scope: 'npm test', created_by: 'alice' }]);
    expect(await h.gate.check(exec('npm test'), attended())).toMatchObject({ step: 9 });
  });
  it('always on a dangerous call counts once and records nothing', async () => {
    const h = harness();
    h.approver.answer = 'always';
    const d = await h.gate.check({ tool: 'cronjob', args: { action: 'list' } }, attended());
    expect(d).toMatchObject({ rule: 'approval.human.once', approval_source: 'human' });
    expect(h.approver.asked[0]?.allow_always).toBe(false);
    expect(h.allowlist.records).toHaveLength(0);
  });
  it('"always" is not offered for a flagged call, nor for a command line with no parsed command to scope it to', async () => {
    const flagged = harness();
    flagged.approver.answer = 'always';
    flagged.guard.commands = [{ program: 'rm' }];
    flagged.guard.findings = [ASK];
    expect(await flagged.gate.check(exec('rm -r build'), attended())).toMatchObject({ rule: 'approval.human.once' });
    expect(flagged.approver.asked[0]?.allow_always).toBe(false);
    expect(flagged.allowlist.records).toHaveLength(0);
    const unscoped = harness();
    unscoped.guard.commands = [];
    await unscoped.gate.check(exec('$(computed)'), attended());
    expect(unscoped.approver.asked[0]).toMatchObject({ allow_always: false, scopes: [] });
    const plain = harness();
    plain.guard.commands = [{ program: 'npm', subcommand: 'test' }];
    await plain.gate.check(exec('npm test'), attended());
    expect(plain.approver.asked[0]).toMatchObject({ allow_always: true, scopes: ['npm test'] });
  });
  it.each([
    ['deny', 'approval.human.deny'], ['timeout', 'approval.human.timeout'], ['never', 'approval.human.timeout'],
    ['wrong_hash', 'approval.human.mismatch'],
  ] as const)('%s -> refused (%s)', async (answer, rule) => {
    const h = harness();
    h.approver.answer = answer;
    const d = await h.gate.check(exec(), attended());
    expect(d).toMatchObject({ outcome: 'deny', step: 11, rule });
    expect(d.approval_source).toBeUndefined();
  });
  it('an approver that throws at once is unavailable: the call is refused and decided, not left without a decision', async () => {
    const h = harness();
    h.approver.ask = () => { throw new Error('the approvals table is gone'); };
    const d = await h.gate.check(exec(), attended());
    expect(d).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.human.unavailable' });
  });
  it('an answer the store took just before the deadline counts: not refused as "nobody answered"', async () => {
    const h = harness();
    h.approver.answer = 'recorded_at_deadline';
    const d = await h.gate.check(exec(), attended());
    expect(d).toMatchObject({ outcome: 'allow', step: 11, rule: 'approval.human.once', approval_source: 'human' });
  });
  it('stops asking when the session is stopped, and refuses the call (approval.human.cancelled)', async () => {
    const h = harness();
    h.approver.answer = 'never';
    const stop = new AbortController();
    stop.abort(new Error('interrupted'));
    const d = await h.gate.check(exec(), attended(), { signal: stop.signal });
    expect(d).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.human.cancelled' });
    expect(d.approval_source).toBeUndefined();
    expect(h.approver.asked).toHaveLength(1);
  });
  it('refuses a nested call that would need a human, without asking (I5)', async () => {
    const h = harness();
    const d = await h.gate.check(exec(), nestedContext(attended()));
    expect(d).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.nested' });
    expect(h.approver.asked).toHaveLength(0);
  });
});

describe('modes', () => {
  const everything = { auto_approve: ['exec'], cli_auto_approve: true, trusted_channels: ['cli'] };
  it('strict skips steps 6–10: exec goes to a human despite every standing policy', async () => {
    const h = harness({ permissions: { approval: { mode: 'strict', ...everything } } }, { reviewer: new RecordingReviewer('APPROVE') });
    await h.allowlist.add({ tool: 'exec', scope: 'ls', created_by: 'a', reason: '' });
    h.guard.commands = [{ program: 'ls' }];
    expect(await h.gate.check(exec('ls'), attended({ channel: 'cli' }))).toMatchObject({ step: 11, approval_source: 'human' });
    expect(h.reviewer.calls).toBe(0);
  });
  it('strict still allows read_only and write at step 5', async () => {
    const h = harness({ permissions: { approval: { mode: 'strict' } } });
    expect(await h.gate.check({ tool: 'write_file', args: { path: 'a', content: '' } }, attended())).toMatchObject({ step: 5 });
  });
  it('off allows exec at step 10 without asking', async () => {
    const h = harness({ permissions: { approval: { mode: 'off' } } });
    expect(await h.gate.check(exec(), attended())).toMatchObject({ outcome: 'allow', step: 10, rule: 'approval.mode_off', approval_source: 'auto' });
    expect(h.approver.asked).toHaveLength(0);
  });
  it('off still sends dangerous and flagged calls to a human', async () => {
    const h = harness({ permissions: { approval: { mode: 'off' } } });
    expect((await h.gate.check({ tool: 'cronjob', args: { action: 'list' } }, attended())).step).toBe(11);
    h.guard.findings = [ASK];
    expect((await h.gate.check(exec(), attended())).step).toBe(11);
  });
});

describe('I3: approval_source is human only from step 11', () => {
  it('every allow before step 11 is auto, across modes, channels and tools', async () => {
    const tools = ['read_file', 'write_file', 'exec', 'cronjob', 'delegate_task'];
    for (const mode of ['off', 'smart', 'strict'] as const) {
      for (const channel of ['cli', 'telegram']) {
        for (const tool of tools) {
          const h = harness({ permissions: { approval: { mode, auto_approve: ['exec'], cli_auto_approve: true, trusted_channels: ['telegram'] } } }, { reviewer: new RecordingReviewer('APPROVE') });
          const d = await h.gate.check({ tool, args: { command: 'ls', path: 'a', content: '', action: 'list', prompt: 'p' } }, attended({ channel, approval_source: 'human' }));
          if (d.outcome === 'allow') expect(d.approval_source).toBe(d.step === 11 ? 'human' : 'auto');
        }
      }
    }
  });
});

describe('dry run (check call)', () => {
  it('says a step would ask instead of asking', async () => {
    const h = harness({}, { dryRun: true });
    expect(await h.gate.check(exec(), attended())).toMatchObject({ outcome: 'would_ask', step: 10, rule: 'approval.would_ask_smart' });
    const noSmart = harness({}, { dryRun: true, reviewer: null });
    expect(await noSmart.gate.check(exec(), attended())).toMatchObject({ outcome: 'would_ask', step: 11, rule: 'approval.would_ask' });
    expect(h.approver.asked).toHaveLength(0);
    expect(h.reviewer.calls).toBe(0);
  });
});
