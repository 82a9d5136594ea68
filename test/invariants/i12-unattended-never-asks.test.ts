import { describe, expect, it } from 'vitest';
import type { RunGrant } from '../../src/approval/ports.ts';
import { CATALOG } from '../../src/tools/catalog-table.ts';
import { buildContext, nestedContext, type ToolExecutionContext } from '../../src/tools/context.ts';
import { ASK, harness, RecordingReviewer } from '../support/gate-harness.ts';

/**
 * I12: an unattended run never waits for a human. Every unattended call is decided at step 4 (or refused
 * earlier, at steps 0-2), whatever the approval mode, the unattended_policy, the grant, and however many
 * standing policies (auto_approve, trusted channel, cli_auto_approve, allowlist, smart APPROVE) would pass it.
 */
const unattended = (over: Parameters<typeof buildContext>[0] = {}): ToolExecutionContext =>
  buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_x', user_id: 'owner', ...over });

const CONTEXTS: readonly [string, ToolExecutionContext][] = [
  ['no grant', unattended()],
  ['cron_authorized', unattended({ cron_authorized: true })],
  ['nested, cron_authorized', nestedContext(unattended({ cron_authorized: true }))],
  ['nested, no grant', nestedContext(unattended())],
];

const GRANTS: readonly [string, RunGrant | undefined][] = [
  ['no run grant', undefined],
  ['grant withdrawn mid-run', { inForce: async () => false, covers: () => true }],
  ['tool outside the grant', { inForce: async () => true, covers: () => false }],
];

// one tool of each risk the catalog has, with arguments that pass their schema
const CALLS = [
  { tool: 'read_file', args: { path: 'a.txt' } },
  { tool: 'write_file', args: { path: 'out.txt', content: 'x' } },
  { tool: 'edit_file', args: { path: 'out.txt', old_text: 'x', new_text: 'y' } },
  { tool: 'exec', args: { command: 'ls' } },
  { tool: 'delegate_task', args: { prompt: 'p' } },
  { tool: 'notify', args: { message: 'm' } },
  { tool: 'cronjob', args: { action: 'list' } },
] as const;

describe('I12: no unattended call goes past step 4, in any mode or under any policy', () => {
  for (const mode of ['off', 'smart', 'strict'] as const) {
    for (const policy of ['deny', 'allow_safe'] as const) {
      it(`mode ${mode}, unattended_policy ${policy}: every call is decided without asking anyone`, async () => {
        for (const { tool, args } of CALLS) {
          for (const [, ctx] of CONTEXTS) {
            for (const [, grant] of GRANTS) {
              for (const flagged of [false, true]) {
                const h = harness({
                  permissions: {
                    approval: {
                      mode, unattended_policy: policy, auto_approve: [tool], trusted_channels: ['cron'], cli_auto_approve: true,
                    },
                  },
                }, { reviewer: new RecordingReviewer('APPROVE'), ...(grant ? { grant } : {}) });
                h.guard.commands = [{ program: 'ls' }];
                await h.allowlist.add({ tool, scope: tool === 'exec' ? 'ls' : tool, created_by: 'alice', reason: 'standing approval' });
                if (flagged) h.guard.findings = [ASK];
                const d = await h.gate.check({ tool, args }, ctx);
                const where = `${tool} ${ctx.cron_authorized ? 'authorised' : 'not authorised'} flagged=${flagged}: step ${d.step} ${d.rule}`;
                expect([0, 1, 2, 4], where).toContain(d.step);
                expect(h.approver.asked, where).toHaveLength(0);
                expect(h.reviewer.calls, where).toBe(0);
                expect(d.approval_source, where).not.toBe('human');
                expect(d.outcome, where).not.toBe('would_ask');
              }
            }
          }
        }
      });
    }
  }

  it('every catalog tool, strict mode and unattended_policy deny: nothing reaches the human step', async () => {
    for (const entry of CATALOG) {
      for (const [, ctx] of CONTEXTS) {
        const h = harness({ permissions: { approval: { mode: 'strict', unattended_policy: 'deny' } } });
        const d = await h.gate.check({ tool: entry.name, args: {} }, ctx);
        expect([0, 1, 2, 4], `${entry.name}: step ${d.step} ${d.rule}`).toContain(d.step);
        expect(h.approver.asked).toHaveLength(0);
      }
    }
  });
});
