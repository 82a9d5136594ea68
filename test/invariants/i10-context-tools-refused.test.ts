import { describe, expect, it } from 'vitest';
import { buildContext, nestedContext, NO_TOOLS } from '../../src/tools/context.ts';
import { harness, RecordingReviewer } from '../support/gate-harness.ts';

/**
 * I10 with SPEC §4 step 4: a context's allowed_tools (a job's tools, a delegate_task's tools) narrows what
 * it is offered, and a tool outside it is refused at step 0 when called anyway, however harmless it is
 * and whatever would otherwise let it through.
 */
const permissive = {
  permissions: { approval: { mode: 'off' as const, auto_approve: ['list_dir', 'write_file', 'exec'], cli_auto_approve: true, trusted_channels: ['cli', 'cron'], unattended_policy: 'allow_safe' as const } },
};

describe('I10: a tool outside the context\'s allowed_tools is refused if called anyway', () => {
  it.each([
    ['an attended session', { channel: 'cli', user_id: 'alice' }],
    ['an unattended run of a job whose tools are listed', { channel: 'cron', unattended: true, cron_authorized: true, session_key: 'cron:job_x' }],
  ] as const)('%s', async (_label, input) => {
    const h = harness(permissive, { reviewer: new RecordingReviewer('APPROVE') });
    const ctx = buildContext({ ...input, allowed_tools: ['read_file'] });
    expect(await h.gate.check({ tool: 'read_file', args: { path: 'a' } }, ctx)).toMatchObject({ outcome: 'allow' });
    for (const call of [{ tool: 'list_dir', args: { path: '.' } }, { tool: 'write_file', args: { path: 'a', content: 'x' } }, { tool: 'exec', args: { command: 'ls' } }]) {
      const d = await h.gate.check(call, ctx);
      expect(d, call.tool).toMatchObject({ outcome: 'deny', step: 0, rule: 'context.allowed_tools' });
    }
    expect(h.approver.asked).toHaveLength(0);
  });

  it('a sub-agent held to the tools its delegate_task named is refused the others, and one left with none is refused all', async () => {
    const h = harness(permissive, { reviewer: new RecordingReviewer('APPROVE') });
    const parent = buildContext({ channel: 'cli', user_id: 'alice' });
    const child = nestedContext(parent, { allowed_tools: ['read_file'] });
    expect(await h.gate.check({ tool: 'list_dir', args: { path: '.' } }, child)).toMatchObject({ outcome: 'deny', step: 0, rule: 'context.allowed_tools' });
    const none = nestedContext(buildContext({ channel: 'cli', allowed_tools: ['read_file'] }), { allowed_tools: ['exec'] });
    expect(none.allowed_tools).toEqual([NO_TOOLS]);
    for (const tool of ['read_file', 'exec', 'list_dir']) {
      expect(await h.gate.check({ tool, args: { path: 'a', command: 'ls' } }, none)).toMatchObject({ outcome: 'deny', step: 0, rule: 'context.allowed_tools' });
    }
  });
});
