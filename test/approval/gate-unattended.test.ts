import { describe, expect, it } from 'vitest';
import { buildContext, nestedContext } from '../../src/tools/context.ts';
import { CATALOG } from '../../src/tools/catalog-table.ts';
import { ASK, harness, RecordingReviewer } from '../support/gate-harness.ts';

const unattended = (over: Parameters<typeof buildContext>[0] = {}) => buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_x', ...over });
const call = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });

describe('step 4: the seed unattended / cron_authorized table', () => {
  it('interactive session (False, False): standard flow — exec goes on to a human', async () => {
    const h = harness();
    const d = await h.gate.check(call('exec', { command: 'ls' }), buildContext({ unattended: false }));
    expect(d.step).toBe(11);
    expect(h.approver.asked).toHaveLength(1);
  });

  it.each(['write_file', 'exec'])('cron trigger, authorised (True, True): %s is allowed at step 4', async (tool) => {
    const h = harness();
    const d = await h.gate.check(call(tool, { path: 'out.txt', content: 'x', command: 'ls' }), unattended({ cron_authorized: true }));
    expect(d).toMatchObject({ outcome: 'allow', step: 4, rule: 'unattended.cron_authorized', approval_source: 'auto' });
  });

  it.each([
    ['deny', 'write_file', 'deny', 'unattended.policy_deny'],
    ['deny', 'exec', 'deny', 'unattended.policy_deny'],
    ['allow_safe', 'write_file', 'allow', 'unattended.allow_safe.write'],
    ['allow_safe', 'exec', 'deny', 'unattended.allow_safe.exec'],
  ] as const)('cron trigger, not authorised (True, False): policy %s, %s -> %s (%s)', async (policy, tool, outcome, rule) => {
    const h = harness({ permissions: { approval: { unattended_policy: policy } } });
    const d = await h.gate.check(call(tool, { path: 'out.txt', content: 'x', command: 'ls' }), unattended());
    expect(d).toMatchObject({ outcome, step: 4, rule });
  });

  it('a grant withdrawn since the run started no longer covers write and exec calls; read-only calls never ask about it', async () => {
    let asked = 0;
    const h = harness({}, { grant: { inForce: async () => { asked++; return false; }, covers: () => true } });
    const write = await h.gate.check(call('write_file', { path: 'out.txt', content: 'x' }), unattended({ cron_authorized: true }));
    expect(write).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.grant_withdrawn' });
    expect(asked).toBe(1);
    expect(await h.gate.check(call('read_file', { path: 'out.txt' }), unattended({ cron_authorized: true }))).toMatchObject({ outcome: 'allow', rule: 'unattended.read_only' });
    expect(asked).toBe(1);
    // judged from then on as a run without a grant: allow_safe still lets a workspace write through
    const safe = harness({ permissions: { approval: { unattended_policy: 'allow_safe' } } }, { grant: { inForce: async () => false, covers: () => true } });
    expect(await safe.gate.check(call('write_file', { path: 'out.txt', content: 'x' }), unattended({ cron_authorized: true }))).toMatchObject({ outcome: 'allow', rule: 'unattended.grant_withdrawn.allow_safe' });
    expect(await safe.gate.check(call('exec', { command: 'ls' }), unattended({ cron_authorized: true }))).toMatchObject({ outcome: 'deny', rule: 'unattended.grant_withdrawn' });
    const held = harness({}, { grant: { inForce: async () => true, covers: () => true } });
    expect(await held.gate.check(call('exec', { command: 'ls' }), unattended({ cron_authorized: true }))).toMatchObject({ outcome: 'allow', rule: 'unattended.cron_authorized' });
  });

  it('a grant covers only the tools its approval listed: any other write or exec call is judged as one without a grant', async () => {
    const covers = (tool: string) => tool === 'write_file';
    for (const policy of ['deny', 'allow_safe'] as const) {
      const h = harness({ permissions: { approval: { unattended_policy: policy } } }, { grant: { inForce: async () => true, covers } });
      const ctx = unattended({ cron_authorized: true });
      expect(await h.gate.check(call('write_file', { path: 'out.txt', content: 'x' }), ctx)).toMatchObject({ outcome: 'allow', step: 4, rule: 'unattended.cron_authorized' });
      expect(await h.gate.check(call('edit_file', { path: 'out.txt', old_text: 'x', new_text: 'y' }), ctx)).toMatchObject(
        policy === 'deny' ? { outcome: 'deny', step: 4, rule: 'unattended.outside_grant' } : { outcome: 'allow', step: 4, rule: 'unattended.outside_grant.allow_safe' },
      );
      expect(await h.gate.check(call('exec', { command: 'ls' }), ctx)).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.outside_grant' });
      // read-only calls never needed the grant
      expect(await h.gate.check(call('read_file', { path: 'out.txt' }), ctx)).toMatchObject({ outcome: 'allow', rule: 'unattended.read_only' });
    }
  });

  it('allow_safe refuses a write whose path leaves the workspace', async () => {
    const h = harness({ permissions: { approval: { unattended_policy: 'allow_safe' } } });
    h.guard.scope = 'outside';
    const d = await h.gate.check(call('write_file', { path: '/etc/x', content: '' }), unattended());
    expect(d).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.allow_safe.path' });
  });

  it('sub-agent worker inherits unattended and cron_authorized and cannot raise them', async () => {
    const parent = unattended({ cron_authorized: false });
    const child = nestedContext(parent);
    expect(child.unattended).toBe(true);
    expect(child.cron_authorized).toBe(false);
    expect(child.parent_execution_id).toBe(parent.execution_id);
    const h = harness();
    const d = await h.gate.check(call('write_file', { path: 'a', content: '' }), child);
    expect(d).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.policy_deny' });
  });

  it('allows read_only unattended, refuses a flagged read_only call', async () => {
    const h = harness();
    expect(await h.gate.check(call('read_file', { path: 'a' }), unattended())).toMatchObject({ outcome: 'allow', step: 4, rule: 'unattended.read_only' });
    h.guard.findings = [ASK];
    expect(await h.gate.check(call('web_fetch', { url: 'http://10.0.0.1/' }), unattended({ cron_authorized: true }))).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.flagged' });
  });
});

describe('I1: an unattended DANGEROUS call is always refused', () => {
  const DANGEROUS = CATALOG.filter((t) => t.risk === 'dangerous').map((t) => t.name);
  it.each(DANGEROUS)('%s is refused with cron_authorized + auto_approve + trusted channel + allowlist + mode off + smart APPROVE', async (tool) => {
    for (const mode of ['off', 'smart', 'strict'] as const) {
      const h = harness({
        permissions: { approval: { mode, auto_approve: [tool], trusted_channels: ['cron'], cli_auto_approve: true, unattended_policy: 'allow_safe' } },
      }, { reviewer: new RecordingReviewer('APPROVE') });
      await h.allowlist.add({ tool, scope: tool, created_by: 'alice', reason: 'test' });
      const d = await h.gate.check(call(tool, { action: 'create', source: './skill', name: 'x' }), unattended({ cron_authorized: true, channel: 'cron' }));
      expect(d).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.dangerous' });
      expect(d.reason).toMatch(/do not retry or rephrase/i);
    }
  });
});

describe('I12: nothing unattended waits for a human or the smart reviewer', () => {
  const contexts = [
    unattended(), unattended({ cron_authorized: true }), nestedContext(unattended({ cron_authorized: true })),
  ];
  it.each(CATALOG.map((t) => t.name))('%s, in every unattended context and with or without a flag', async (tool) => {
    for (const mode of ['off', 'smart', 'strict'] as const) {
      for (const flagged of [false, true]) {
        for (const ctx of contexts) {
          const h = harness({ permissions: { approval: { mode, unattended_policy: 'allow_safe' } } });
          if (flagged) h.guard.findings = [ASK];
          const d = await h.gate.check(call(tool, {}), ctx);
          expect([0, 1, 2, 4]).toContain(d.step);
          expect(h.approver.asked).toHaveLength(0);
          expect(h.reviewer.calls).toBe(0);
          expect(d.approval_source).not.toBe('human');
        }
      }
    }
  });
});
